// FIS builders and parsers (docs/hardware.md section 1). Byte 0 of a FIS is sent first; multi-byte
// fields are little-endian.
#include "model/sata/fis.h"

#include <cstdio>
#include <cstring>

namespace satasim::sata {
namespace {

void put_lba_device_count(std::vector<uint8_t> &b, uint64_t lba, uint8_t device, uint16_t count) {
    b[4] = uint8_t(lba);
    b[5] = uint8_t(lba >> 8);
    b[6] = uint8_t(lba >> 16);
    b[7] = device;
    b[8] = uint8_t(lba >> 24);
    b[9] = uint8_t(lba >> 32);
    b[10] = uint8_t(lba >> 40);
    b[12] = uint8_t(count);
    b[13] = uint8_t(count >> 8);
}

void put32(std::vector<uint8_t> &b, size_t off, uint32_t v) {
    b[off] = uint8_t(v);
    b[off + 1] = uint8_t(v >> 8);
    b[off + 2] = uint8_t(v >> 16);
    b[off + 3] = uint8_t(v >> 24);
}

Fis blank(FisType t, size_t len, uint8_t flags) {
    Fis f;
    f.bytes.assign(len, 0);
    f.bytes[0] = uint8_t(t);
    f.bytes[1] = flags;
    return f;
}

} // namespace

Fis make_reg_h2d(const Taskfile &tf, bool command_bit, uint8_t pm_port) {
    Fis f = blank(FisType::RegH2D, 20,
                  uint8_t((pm_port & kFisPmPortMask) | (command_bit ? kFisCommand : 0)));
    f.bytes[2] = tf.command;
    f.bytes[3] = tf.feature;
    put_lba_device_count(f.bytes, tf.lba, tf.device, tf.count);
    f.bytes[11] = tf.feature_hi;
    f.bytes[15] = tf.control;
    put32(f.bytes, 16, tf.aux);
    return f;
}

Fis make_reg_d2h(uint8_t status, uint8_t error, uint64_t lba, uint8_t device, uint16_t count,
                 bool irq, uint8_t pm_port) {
    Fis f = blank(FisType::RegD2H, 20,
                  uint8_t((pm_port & kFisPmPortMask) | (irq ? kFisInterrupt : 0)));
    f.bytes[2] = status;
    f.bytes[3] = error;
    put_lba_device_count(f.bytes, lba, device, count);
    return f;
}

Fis make_pio_setup(bool d2h, bool irq, uint8_t status, uint8_t error, uint8_t e_status,
                   uint16_t xfer_count, const Taskfile &regs, uint8_t pm_port) {
    Fis f = blank(FisType::PioSetup, 20,
                  uint8_t((pm_port & kFisPmPortMask) | (d2h ? kFisDirD2H : 0) |
                          (irq ? kFisInterrupt : 0)));
    f.bytes[2] = status;
    f.bytes[3] = error;
    put_lba_device_count(f.bytes, regs.lba, regs.device, regs.count);
    f.bytes[15] = e_status;
    f.bytes[16] = uint8_t(xfer_count);
    f.bytes[17] = uint8_t(xfer_count >> 8);
    return f;
}

Fis make_dma_activate(uint8_t pm_port) {
    return blank(FisType::DmaActivate, 4, uint8_t(pm_port & kFisPmPortMask));
}

Fis make_dma_setup(bool d2h, bool irq, bool auto_activate, uint8_t tag, uint32_t offset,
                   uint32_t count, uint8_t pm_port) {
    Fis f = blank(FisType::DmaSetup, 28,
                  uint8_t((pm_port & kFisPmPortMask) | (d2h ? kFisDirD2H : 0) |
                          (irq ? kFisInterrupt : 0) | (auto_activate ? kFisCommand : 0)));
    put32(f.bytes, 4, tag & 0x1Fu); // DMA buffer identifier low: NCQ tag (MEM: bits 4:0)
    put32(f.bytes, 8, 0);
    put32(f.bytes, 16, offset);
    put32(f.bytes, 20, count);
    return f;
}

Fis make_sdb(uint8_t status, uint8_t error, uint32_t sactive, bool irq, bool notify,
             uint8_t pm_port) {
    Fis f = blank(FisType::SetDeviceBits, 8,
                  uint8_t((pm_port & kFisPmPortMask) | (irq ? kFisInterrupt : 0) |
                          (notify ? kFisCommand : 0)));
    // Status-Hi (6:4) and Status-Lo (2:0) only: an SDB never carries BSY or DRQ.
    f.bytes[2] = uint8_t(status & 0x77);
    f.bytes[3] = error;
    put32(f.bytes, 4, sactive);
    return f;
}

Fis make_data_zeroed(size_t len, uint8_t pm_port) {
    size_t padded = (len + 3) & ~size_t(3);
    return blank(FisType::Data, 4 + padded, uint8_t(pm_port & kFisPmPortMask));
}

Fis make_data(const uint8_t *payload, size_t len, uint8_t pm_port) {
    Fis f = make_data_zeroed(len, pm_port);
    if (len)
        std::memcpy(f.bytes.data() + 4, payload, len);
    return f;
}

// Byte i of a FIS is bits 8*(i%4) .. of dword i/4: on a little-endian host that is the
// memory layout of a uint32_t array, so whole buffers are copied; otherwise byte by byte.
void fis_to_dwords(const Fis &fis, uint32_t *out) {
    const size_t n = fis.dwords();
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n)
        std::memcpy(out, fis.bytes.data(), n * 4);
#else
    for (size_t i = 0; i < n; ++i)
        out[i] = fis.dword(i);
#endif
}

void fis_from_dwords(Fis &fis, const uint32_t *dw, size_t n) {
    fis.bytes.resize(n * 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n)
        std::memcpy(fis.bytes.data(), dw, n * 4);
#else
    for (size_t i = 0; i < n; ++i)
        for (int b = 0; b < 4; ++b)
            fis.bytes[4 * i + b] = uint8_t(dw[i] >> (8 * b));
#endif
}

Taskfile parse_taskfile(const Fis &fis) {
    Taskfile tf;
    const auto &b = fis.bytes;
    if (b.size() < 16)
        return tf;
    tf.command = b[2];
    tf.feature = b[3];
    tf.lba = uint64_t(b[4]) | uint64_t(b[5]) << 8 | uint64_t(b[6]) << 16 |
             uint64_t(b[8]) << 24 | uint64_t(b[9]) << 32 | uint64_t(b[10]) << 40;
    tf.device = b[7];
    tf.feature_hi = b[11];
    tf.count = uint16_t(b[12] | b[13] << 8);
    tf.control = b[15];
    if (b.size() >= 20)
        tf.aux = uint32_t(b[16] | b[17] << 8 | b[18] << 16) | uint32_t(b[19]) << 24;
    return tf;
}

size_t fis_fixed_length(FisType type) {
    switch (type) {
    case FisType::RegH2D:
    case FisType::RegD2H:
    case FisType::PioSetup:
        return 20;
    case FisType::DmaActivate:
        return 4;
    case FisType::DmaSetup:
        return 28;
    case FisType::Bist:
        return 12;
    case FisType::SetDeviceBits:
        return 8;
    case FisType::Data:
        return 0;
    }
    return 0;
}

bool fis_well_formed(const Fis &fis) {
    const auto &b = fis.bytes;
    if (b.size() < 4 || b.size() % 4 != 0)
        return false;
    const auto type = FisType(b[0]);
    if (type == FisType::Data)
        return b.size() >= 8 && b.size() <= 4 + kMaxDataFisPayload;
    const size_t len = fis_fixed_length(type);
    return len == 0 || b.size() == len;
}

std::string describe(const Fis &fis) {
    char buf[160];
    if (fis.bytes.empty())
        return "empty";
    const auto &b = fis.bytes;
    auto type = fis.type();
    size_t need = fis_fixed_length(type);
    if (type != FisType::Data && (need == 0 || b.size() < need)) {
        std::snprintf(buf, sizeof buf, "FIS type=0x%02x len=%zu", unsigned(b[0]), b.size());
        return buf;
    }
    unsigned pm = fis.pm_port();
    switch (type) {
    case FisType::RegH2D: {
        Taskfile tf = parse_taskfile(fis);
        if (b[1] & kFisCommand)
            std::snprintf(buf, sizeof buf,
                          "H2D cmd=0x%02x feat=0x%02x lba=%llu count=%u dev=0x%02x pm=%u",
                          tf.command, unsigned(tf.feature | tf.feature_hi << 8),
                          (unsigned long long)tf.lba, unsigned(tf.count), tf.device, pm);
        else
            std::snprintf(buf, sizeof buf, "H2D ctl=0x%02x pm=%u", tf.control, pm);
        break;
    }
    case FisType::RegD2H: {
        Taskfile tf = parse_taskfile(fis);
        std::snprintf(buf, sizeof buf, "D2H status=0x%02x error=0x%02x lba=%llu count=%u%s pm=%u",
                      tf.command, tf.feature, (unsigned long long)tf.lba, unsigned(tf.count),
                      (b[1] & kFisInterrupt) ? " I" : "", pm);
        break;
    }
    case FisType::PioSetup:
        std::snprintf(buf, sizeof buf, "PIO Setup %s status=0x%02x e_status=0x%02x xfer=%u%s pm=%u",
                      (b[1] & kFisDirD2H) ? "in" : "out", unsigned(b[2]), unsigned(b[15]),
                      unsigned(b[16] | b[17] << 8), (b[1] & kFisInterrupt) ? " I" : "", pm);
        break;
    case FisType::DmaActivate:
        std::snprintf(buf, sizeof buf, "DMA Activate pm=%u", pm);
        break;
    case FisType::DmaSetup:
        std::snprintf(buf, sizeof buf, "DMA Setup %s tag=%u offset=%u count=%u%s%s pm=%u",
                      (b[1] & kFisDirD2H) ? "in" : "out", unsigned(fis.dword(1) & 0x1F),
                      unsigned(fis.dword(4)), unsigned(fis.dword(5)),
                      (b[1] & kFisInterrupt) ? " I" : "", (b[1] & kFisCommand) ? " A" : "", pm);
        break;
    case FisType::SetDeviceBits:
        std::snprintf(buf, sizeof buf, "SDB status=0x%02x error=0x%02x sactive=0x%08x%s%s pm=%u",
                      unsigned(b[2]), unsigned(b[3]), unsigned(fis.dword(1)),
                      (b[1] & kFisInterrupt) ? " I" : "", (b[1] & kFisCommand) ? " N" : "", pm);
        break;
    case FisType::Bist:
        std::snprintf(buf, sizeof buf, "BIST Activate pattern=0x%02x pm=%u", unsigned(b[2]), pm);
        break;
    case FisType::Data:
        std::snprintf(buf, sizeof buf, "Data bytes=%zu pm=%u", b.size() >= 4 ? b.size() - 4 : 0,
                      pm);
        break;
    }
    return buf;
}

} // namespace satasim::sata
