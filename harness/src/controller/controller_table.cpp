#include "controller/controller_table.h"

#include <algorithm>

#include "satasim/ata.h"

namespace satasim::harness {

const std::vector<ControllerDesc> &controller_descs() {
    static const std::vector<ControllerDesc> rows = {
        {ControllerId::Ahci, "ahci", "AHCI 1.3.1 HBA (an ICH9-like function)", 0x8086, 0x2922, 0x010601,
         ahci_host_create, "ahci_host_create", "ahci 0000:00:1f.2", "ahci0",
         /*max_ports*/ 32, /*hardware_ports*/ 0, /*default_ports*/ 4, /*slots*/ 0, NcqSupport::Optional,
         /*ncq_depth*/ 32, /*max_gen*/ 3, /*max_udma*/ 6, /*pmp*/ true, /*scr*/ true, /*taskfile*/ false,
         /*ahci_dma_engine*/ true, {"fbs", "staggered_spinup", "lpm", "devsleep"}, "", "", {"systemc", "qemu", "rtl"},
         "ahci.error_irq", {"ahci.kick_failed", "ahci.deinit_failed", "ahci.reset_failed"},
         {"ahci", "ahci", " abar ", {},
          {{"unknown_driver", "{driver} has no satasim model; ahci stands in"}, {"default", ""}},
          /*log_host_line*/ true, /*tagged_non_ncq*/ true, "", /*reference*/ true, {}, {}},
         "ahci."},
        {ControllerId::Sil24, "sil24", "Silicon Image SiI3124 (PCI-X)", 0x1095, 0x3124, 0x010400,
         sil24_host_create, "sil24_host_create", "sata_sil24 0000:01:00.0", "sil24_0",
         4, 4, 4, 31, NcqSupport::Always, 31, 2, 5, true, true, false, false,
         {"pcix_irq_loss", "pcix_ack_window"}, " (the sil24 switches per FIS natively)",
         "PCI-X completion-interrupt loss (controller.pcix_irq_loss; the driver's workaround: host.irq_loss_fix)",
         {"systemc"}, "sil24.error_irq", {"sil24.port_init_failed"},
         {"sata_sil24", "", R"( host m\d+@)", {"PMP DMA CS errata", "via D2H FIS"},
          {{"log_wording", "no driver named; sil24's irq_stat wording read from the log"}}, false, false, "", false,
          {"ports"},
          {{R"(SATA link up 6\.0 Gbps)", "SATA link up 3.0 Gbps"},
           // SStatus SPD capped at Gen2; the reset path leaves SControl 0
           {R"(\(SStatus 1[3-9]3 SControl 300\))", "(SStatus 123 SControl 0)"},
           {R"(\(SStatus 1([0-2])3 SControl 300\))", R"((SStatus 1\g<1>3 SControl 0))"},
           {"UDMA/133", "UDMA/100"},
           {R"(NCQ \(depth 32\))", "NCQ (depth 31/32)"}}},
         "sil24."},
        {ControllerId::Sil3112, "sil3112", "Silicon Image SiI3112 (taskfile, bus-master DMA)", 0x1095, 0x3112,
         0x010400, sil_host_create, "sil_host_create", "sil3112", "sil3112_0",
         2, 2, 2, 1, NcqSupport::Never, 0, 1, 5, false, true, true, false, {}, "", "", {"systemc"}, "", {},
         {"sata_sil", "", " bmdma ", {"BMDMA2 stat"},
          {{"log_wording", "no driver named; BMDMA2 (sata_sil) read from the log"}}, false, false, "", false, {},
          {{R"(SATA link up (6\.0|3\.0) Gbps)", "SATA link up 1.5 Gbps"},
           {R"(\(SStatus 1\d3 SControl 300\))", "(SStatus 113 SControl 300)"},
           {"UDMA/133", "UDMA/100"},
           {R"(NCQ \(depth \d+/32\))", "NCQ (depth 0/32)"}}},
         "sil3112."},
        {ControllerId::Piix, "piix", "Intel ICH/PIIX SATA in IDE mode (taskfile, bus-master DMA)", 0x8086, 0x24d1,
         0x01018a, piix_host_create, "piix_host_create", "piix", "piix0",
         2, 2, 2, 1, NcqSupport::Never, 0, 2, 6, false, false, true, false, {"map", "part", "cable"}, "",
         "no SCRs (EH resets with SRST only); ICH6 master/slave port map (controller.map); the PIIX3/PIIX4 "
         "IDE function with parallel ATA master/slave cables (controller.part, controller.cable)",
         {"systemc"}, "", {},
         {"ata_piix", "", " bmdma ", {},
          {{"taskfile", "a taskfile (SFF) port with no driver named: piix stands in"},
           {"pata_own", ""},
           {"pata", "{driver} has no satasim model; ata_piix on a PIIX4 IDE function stands in"},
           {"taskfile_log", "no driver named; a taskfile (SFF) controller read from the log: piix stands in"},
           {"slave", "no driver named; a slave device (ataN.01) read from the log: piix stands in"},
           {"no_scr", "no driver named; soft resets and no SATA link status: a taskfile controller without SCRs, "
                      "piix stands in"}},
          false, false, "map: ich6", false, {}, {{R"(NCQ \(depth \d+/32\))", "NCQ (depth 0/32)"}}},
         "piix."},
    };
    return rows;
}

bool ControllerDesc::takes_key(const std::string &key) const {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool ControllerDesc::runs_on(const std::string &backend) const {
    return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

const ControllerDesc &controller_desc(const std::string &type) {
    for (const ControllerDesc &d : controller_descs())
        if (type == d.name)
            return d;
    return controller_descs().front();
}

std::string controller_log_prefix(const ControllerDesc &d, const std::string &pci) {
    return std::string(d.tools.kernel_driver) + " 0000:" + pci;
}

const ControllerDesc &controller_desc(ControllerId id) { return controller_descs()[size_t(id)]; }

std::string controller_names_or(const std::function<bool(const ControllerDesc &)> &select) {
    std::vector<const char *> names;
    for (const ControllerDesc &d : controller_descs())
        if (select(d))
            names.push_back(d.name);
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
        s += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}

} // namespace satasim::harness
