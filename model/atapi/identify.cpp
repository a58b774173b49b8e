// IDENTIFY PACKET DEVICE data (ATA8-ACS 7.13, table "IDENTIFY PACKET DEVICE data").
#include "model/atapi/atapi_impl.h"
#include "model/device/ata_string.h"

namespace satasim::atapi {

using device::put_ata_string;

std::vector<uint16_t> AtapiDevice::Impl::identify() const {
    std::vector<uint16_t> w(256, 0);
    // word 0: 15:14 = 10b ATAPI, 12:8 = 05h CD/DVD, 7 removable, 6:5 CMD DRQ type, 1:0 = 00b
    // 12-byte packets
    w[0] = uint16_t(0x8000 | 0x0500 | 0x0080 | unsigned(cfg.cdb_drq) << 5);
    put_ata_string(w, 10, 10, cfg.serial);
    put_ata_string(w, 23, 4, cfg.firmware);
    put_ata_string(w, 27, 20, cfg.model);
    w[49] = uint16_t(0x0200 | (cfg.dma ? 0x0100 : 0)); // LBA; DMA
    // words 64-70 and 88 valid; a drive slower than PIO3 gives its mode in word 51 only
    // (ATA-2's PIO data transfer cycle timing mode), as libata's ata_id_xfermask reads it
    w[53] = cfg.pio_max >= 3 ? 0x0006 : 0x0004;
    if (cfg.pio_max < 3)
        w[51] = uint16_t(cfg.pio_max << 8);
    // word 62 (ATA8-ACS): bit 15 DMADIR required for DMA; 10:8 MWDMA, 6:0 UDMA supported
    if (cfg.dmadir)
        w[62] = uint16_t(0x8000 | (cfg.dma ? 0x0007 | (((1u << (cfg.udma_max + 1)) - 1) & 0x7F) : 0));
    w[63] = uint16_t(cfg.dma ? 0x0007 : 0);
    w[64] = cfg.pio_max >= 4 ? 0x0003 : cfg.pio_max == 3 ? 0x0001 : 0; // PIO 3 and 4
    w[65] = w[66] = w[67] = w[68] = 120;
    w[71] = 0x0000; // no PACKET-to-bus-release times
    // Serial ATA: Gen1/Gen2 (w76), no NCQ
    w[76] = 0x0006;
    w[80] = 0x01F0; // ATA/ATAPI-4 .. -8
    w[82] = 0x4210; // PACKET, DEVICE RESET, NOP
    w[83] = 0x4000;
    w[84] = 0x4000;
    w[85] = 0x4210;
    w[87] = 0x4000;
    if (cfg.dma) {
        const uint16_t sup = uint16_t((1u << (cfg.udma_max + 1)) - 1) & 0x7F;
        w[88] = uint16_t(sup | (udma_selected >= 0 ? 0x100 << udma_selected : 0));
    }
    w[93] = 0x0000;
    w[222] = 0x101F; // transport: Serial, SATA 1.0a .. 2.6
    return w;
}

} // namespace satasim::atapi
