/* Intel ICH/PIIX SATA in IDE mode, low-level driver: the SFF/BMDMA layer (stack/sff) on the
 * legacy channels. The controller has no SCRs here (no combined-mode SIDPR), so there is no
 * hardreset: EH resets with SRST and reads the signature from the taskfile, and no link
 * state is printed (libata's ata_piix behaves the same on such parts). Both legacy interrupt
 * lines reach the one handler (ata_sff_interrupt): an interrupt a channel has no use for is
 * acknowledged and ignored (idle), unlike sata_sil, which freezes the port on one.
 * With the port map given (ata_host_config.piix_map), a channel whose slave position maps a
 * SATA port (ICH6 MAP 00b: P2 and P3) has two devices, master/slave emulation: the SFF
 * layer's softreset checks, resets and classifies both, and EH runs per device.
 * Everything but the host start/stop and the port layout is ata_bmdma_port_ops. */
#include <stdio.h>
#include <string.h>

#include "ata_sff.h"

enum { PIIX_N_PORTS = 2 };

static const struct ata_sff_ioaddr piix_io[PIIX_N_PORTS] = {
    { .cmd = 0x1f0, .ctl = 0x3f6, .bmdma = 0xc000, .has_bmdma = true },
    { .cmd = 0x170, .ctl = 0x376, .bmdma = 0xc008, .has_bmdma = true },
};

/* Nothing to program: the channels come up with interrupts masked by nIEN (port_start) until
 * EH's first reset thaws them. */
static int piix_host_start(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_sff_set_ctl(&h->ports[i], ata_sff(&h->ports[i])->ctl);
    return 0;
}

static void piix_host_stop(struct ata_host *h)
{
    for (unsigned i = 0; i < h->n_ports; i++)
        if (!(h->ports[i].flags & ATA_FLAG_DUMMY))
            ata_sff_freeze(&h->ports[i]);
}

static const struct ata_port_operations piix_sata_ops = {
    .inherits = &ata_bmdma_port_ops,
    .host_start = piix_host_start,
    .host_stop = piix_host_stop,
};

static const char create_failed_ev[] = "piix.create_failed";

/* The port map of a MAP value: the SATA port at the primary master, primary slave,
 * secondary master and secondary slave positions, PIIX_NA where the position has none (the
 * ICH5 and ICH6 tables of ata_piix, MAP value 0 each). */
enum { PIIX_NA = -1 };
static const int piix_map_ich5[4] = { 0, PIIX_NA, 1, PIIX_NA };
static const int piix_map_ich6[4] = { 0, 2, 1, 3 };

/* Reading MAP (ata_piix's piix_init_sata_map): a channel whose slave position holds a SATA
 * port may have a device 1 (ATA_FLAG_SLAVE_POSS); the map is logged as libata logs it,
 * "MAP [ P0 P2 P1 P3 ]" ("--" for a position with no port). */
static void piix_init_sata_map(struct ata_host *h, enum ata_piix_map which)
{
    const int *map = which == ATA_PIIX_MAP_ICH6 ? piix_map_ich6 : piix_map_ich5;
    char line[40] = "MAP [";
    size_t n = strlen(line);

    for (unsigned i = 0; i < 4; i++) {
        if (map[i] == PIIX_NA)
            n += (size_t)snprintf(line + n, sizeof(line) - n, " --");
        else
            n += (size_t)snprintf(line + n, sizeof(line) - n, " P%d", map[i]);
        if ((i & 1) && map[i] != PIIX_NA && !(h->ports[i / 2].flags & ATA_FLAG_DUMMY))
            h->ports[i / 2].flags |= ATA_FLAG_SLAVE_POSS;
    }
    snprintf(line + n, sizeof(line) - n, " ]");
    {
        const struct sata_trace_field f[] = { TF_STR("map", which == ATA_PIIX_MAP_ICH6 ? "ich6" : "ich5"),
                                              TF_INT("slave_poss", (h->ports[0].flags & ATA_FLAG_SLAVE_POSS ? 1 : 0) |
                                                                       (h->ports[1].flags & ATA_FLAG_SLAVE_POSS ? 2 : 0)) };

        ata_host_ev(h, ATA_EV("piix.map", SATA_TC_INFO, SATA_LOG_INFO, f), "%s", line);
    }
}

struct ata_host *piix_host_create(struct sata_platform *p, const struct sata_platform_ops *pops,
                                  const struct ata_host_config *cfg)
{
    static const struct ata_host_config dflt;
    struct ata_host *h;

    if (!pops)
        return NULL;
    if (!cfg)
        cfg = &dflt;
    h = ata_host_alloc_priv(p, pops, &piix_sata_ops, PIIX_N_PORTS, 0, cfg, create_failed_ev);
    if (!h)
        return NULL;
    h->flags |= ATA_HOST_PARALLEL_SCAN; /* ata_piix probes its channels at once */
    for (unsigned i = 0; i < PIIX_N_PORTS; i++)
        /* pio0-4, mwdma0-2, udma0-6 (ata_piix's SATA ports: ATA_UDMA6) */
        if (ata_sff_port_init(&h->ports[i], cfg, &piix_io[i],
                              (0x1fu << ATA_SHIFT_PIO) | (0x7u << ATA_SHIFT_MWDMA) | (0x7fu << ATA_SHIFT_UDMA)))
            return ata_host_create_failed(h, create_failed_ev, "failed to allocate port memory");
    if (cfg->piix_map != ATA_PIIX_MAP_NONE)
        piix_init_sata_map(h, cfg->piix_map);
    {
        const struct sata_trace_field f[] = { TF_INT("ports", PIIX_N_PORTS) };

        ata_host_ev(h, ATA_EV("piix.init", SATA_TC_INFO, SATA_LOG_INFO, f),
                    "ICH SATA in IDE mode, %u channels (SFF + BMDMA, no SCRs)", PIIX_N_PORTS);
    }
    return h;
}
