// IDENTIFY DEVICE data (docs/hardware.md 8.3): 256 words built from DiskConfig and the current
// SET FEATURES / SET MULTIPLE state.
#include <algorithm>

#include "model/device/disk_impl.h"
#include "model/device/ata_string.h"

namespace satasim::device {

std::vector<uint16_t> SataDisk::Impl::identify() const {
    std::vector<uint16_t> w(256, 0);
    const uint64_t cap = capacity();

    // Legacy CHS geometry (16 heads, 63 sectors/track, at most 16383 cylinders).
    const uint32_t cyls = uint32_t(std::min<uint64_t>(cap / (16 * 63), 16383));
    w[0] = 0x0040; // ATA device, fixed media
    w[1] = uint16_t(cyls);
    w[3] = 16;
    w[6] = 63;
    put_ata_string(w, 10, 10, cfg.serial);
    put_ata_string(w, 23, 4, cfg.firmware);
    put_ata_string(w, 27, 20, cfg.model);
    w[47] = uint16_t(0x8000 | max_multi());
    w[49] = 0x0F00;  // IORDY supported/disable, LBA, DMA
    w[50] = 0x4000;
    // The PIO modes (ATA-7 6.17.8, 6.17.17, 6.17.27): word 51 bits 15:8 name the highest of
    // PIO0-2 (obsolete since ATA-5, read by hosts when word 53 bit 1 is clear); words 64-70
    // (valid with word 53 bit 1) add PIO3/4, and a host reading them assumes PIO0-2. A drive
    // whose highest mode is below PIO3 leaves bit 1 clear, so a host asks it for no mode it
    // refuses (libata's ata_id_xfermask takes PIO0-2 from word 53 bit 1 alone).
    w[51] = uint16_t(std::min(cfg.pio_max, 2u) << 8);
    w[53] = uint16_t(cfg.pio_max >= 3 ? 0x0007 : 0x0005);  // words 54-58, (64-70) and 88 valid
    w[54] = uint16_t(cyls);
    w[55] = 16;
    w[56] = 63;
    uint32_t chs_cap = cyls * 16u * 63u;
    w[57] = uint16_t(chs_cap);
    w[58] = uint16_t(chs_cap >> 16);
    w[59] = uint16_t(multi_count ? 0x0100 | multi_count : 0);
    const uint32_t cap28 = uint32_t(std::min<uint64_t>(cap, 0x0FFFFFFF));
    w[60] = uint16_t(cap28);
    w[61] = uint16_t(cap28 >> 16);
    w[63] = uint16_t(0x0007 | (mwdma_selected >= 0 ? 0x100 << mwdma_selected : 0));
    w[64] = uint16_t(cfg.pio_max >= 4 ? 0x0003 : cfg.pio_max >= 3 ? 0x0001 : 0);
    w[65] = w[66] = w[67] = w[68] = 120;

    // Serial ATA words.
    const unsigned depth = std::clamp(cfg.ncq_depth, 1u, 32u);
    w[75] = uint16_t(cfg.ncq ? depth - 1 : 0);
    uint16_t w76 = 0;
    for (unsigned g = 1; g <= unsigned(cfg.max_gen) && g <= 3; ++g)
        w76 |= uint16_t(1u << g);
    if (cfg.ncq)
        w76 |= 0x0100;
    if (cfg.hipm)
        w76 |= 0x0200; // receipt of host-initiated interface power management requests
    w[76] = w76;
    w[77] = uint16_t(unsigned(gen) << 1); // current negotiated speed
    if (cfg.ncq && cfg.ncq_trim)
        w[77] |= 0x0040; // NCQ SEND and RECEIVE (the log 13h says which subcommands)
    // DMA Setup auto-activate, settings preservation; bit 3: device-initiated interface
    // power management (supported in 78, enabled in 79)
    w[78] = uint16_t(0x0044 | (cfg.dipm ? 0x0008 : 0) | (cfg.devsleep ? 0x0100 : 0));
    w[79] = uint16_t(0x0040 | (auto_activate ? 0x0004 : 0) | (dipm_enabled ? 0x0008 : 0) |
                     (devslp_enabled ? 0x0100 : 0));

    // Major version: ATA/ATAPI-4 up to ata_major.
    uint16_t w80 = 0;
    for (unsigned v = 4; v <= cfg.ata_major && v <= 14; ++v)
        w80 |= uint16_t(1u << v);
    if (cfg.ata_major < 4 && cfg.ata_major >= 1)
        w80 = uint16_t(1u << cfg.ata_major);
    w[80] = w80;
    w[81] = 0;

    // Command set supported (82-84) and enabled (85-87).
    w[82] = uint16_t(0x0048 | (cfg.write_cache ? 0x0020 : 0)); // power mgmt, look-ahead, WC
    w[83] = uint16_t(0x4000 | 0x1000 | (cfg.lba48 ? 0x2400 : 0)); // FLUSH, LBA48 + FLUSH EXT
    w[84] = uint16_t(0x4000 | 0x0020 | (cfg.lba48 ? 0x0040 : 0)); // GPL, WRITE DMA FUA EXT
    w[85] = uint16_t(0x0008 | (lookahead_enabled ? 0x0040 : 0) |
                     (cfg.write_cache && wcache_enabled ? 0x0020 : 0));
    if (cfg.smart != DiskConfig::Smart::None) { // the SMART feature set, supported and enabled
        w[82] |= 0x0001;
        w[85] |= 0x0001;
    }
    if (cfg.hpa_sectors) { // the Host Protected Area feature set, supported and enabled
        w[82] |= 0x0400;
        w[85] |= 0x0400;
    }
    w[86] = uint16_t(w[83] & 0x3FFF);
    w[87] = w[84];

    uint16_t udma_sup = uint16_t((1u << (std::min(cfg.udma_max, 6u) + 1)) - 1);
    w[88] = uint16_t(udma_sup | (udma_selected >= 0 ? 0x100 << udma_selected : 0));
    w[93] = 0; // no PATA reset result on SATA
    if (cfg.pata) {
        // Not a serial device: no SATA capabilities and transport words.
        w[75] = w[76] = w[77] = w[78] = w[79] = 0;
        // Hardware reset result: bit 14 one, bit 13 the 80-conductor cable; device 0 in 7:0
        // (bit 0, number by jumper 01b in 2:1, diagnostics passed bit 3, PDIAG- bit 4 and DASP-
        // bit 5 from a device 1), device 1 in 12:8 (bit 8, jumper 01b in 10:9, PDIAG- bit 11).
        uint16_t r = uint16_t(0x4000 | (cfg.pata_cable80 ? 0x2000 : 0));
        if (cfg.pata_devno == 0)
            r |= uint16_t(0x000B | (cfg.pata_pair ? 0x0030 : 0));
        else
            r |= 0x0B00;
        w[93] = r;
    }

    if (cfg.lba48) {
        w[100] = uint16_t(cap);
        w[101] = uint16_t(cap >> 16);
        w[102] = uint16_t(cap >> 32);
        w[103] = uint16_t(cap >> 48);
    }
    w[106] = 0x4000; // one 512-byte logical sector per physical sector
    if (cfg.logical_log2) {
        // ACS-3 7.12.7.44 / 7.12.7.50: bit 12, the logical sector is longer than 256 words,
        // and words 117-118 its length in words (2048 for 4Kn; libata's
        // ata_id_logical_sector_size reads them when word 106 & D000h is 5000h)
        const uint32_t words = uint32_t(sector_bytes() / 2);
        w[106] |= 0x1000;
        w[117] = uint16_t(words);
        w[118] = uint16_t(words >> 16);
    }
    if (cfg.physical_log2) {
        // several logical sectors per physical one (bit 13), 2^n of them (3:0); word 209
        // valid (bits 15:14 = 01b) with the logical sector offset of LBA 0
        w[106] = uint16_t((w[106] & 0x1000) | 0x6000 | (cfg.physical_log2 & 0xF));
        w[209] = uint16_t(0x4000 | (cfg.align_offset & 0x3FFF));
    }
    if (cfg.trim != DiskConfig::Trim::None) {
        w[169] = 0x0001; // DATA SET MANAGEMENT with TRIM
        w[105] = uint16_t(DiskConfig::kTrimMaxBlocks);
        if (cfg.trim != DiskConfig::Trim::Indeterminate)
            w[69] |= 0x4000; // deterministic read after TRIM
        if (cfg.trim == DiskConfig::Trim::Zeroes)
            w[69] |= 0x0020; // read zeroes after TRIM
    }
    w[217] = uint16_t(cfg.timing.ssd ? 1 : std::clamp(cfg.timing.rpm, 0.0, 65534.0));
    // Transport: Serial; ATA8-AST, SATA 1.0a, II Ext, 2.5, 2.6 and 3.0 per max speed.
    unsigned tbits = cfg.max_gen >= link::Gen::Gen3   ? 0x3F
                     : cfg.max_gen >= link::Gen::Gen2 ? 0x1F
                                                      : 0x03;
    w[222] = cfg.pata ? 0 : uint16_t(0x1000 | tbits);

    // Integrity word: signature A5h and a checksum making the 512 bytes sum to zero.
    w[255] = 0x00A5;
    unsigned sum = 0;
    for (unsigned i = 0; i < 256; ++i)
        sum += (w[i] & 0xFF) + (w[i] >> 8);
    w[255] = uint16_t(0x00A5 | (uint8_t(-sum) << 8));
    return w;
}

} // namespace satasim::device
