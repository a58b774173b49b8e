// The SFF register decode (sff_decoder.h).
#include "model/sff/sff_decoder.h"

namespace satasim::sff {

namespace {
bool in(uint32_t off, uint32_t base, uint32_t size) { return off >= base && off < base + size; }
} // namespace

bool sff_read8(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint8_t &out) {
    if (in(off, w.cmd, reg::kCmdBlockSize)) {
        const unsigned r = off - w.cmd;
        out = r == reg::kData ? uint8_t(ch.read_data()) : ch.read_cmd(r);
    } else if (off == w.ctl) {
        out = ch.read_altstatus();
    } else if (in(off, w.bmdma, bmdma::reg::kSize)) {
        out = ch.bmdma().read8(off - w.bmdma);
    } else {
        return false;
    }
    return true;
}

bool sff_write8(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint8_t val) {
    if (in(off, w.cmd, reg::kCmdBlockSize)) {
        if (off != w.cmd) // the Data register is 16 bits wide
            ch.write_cmd(off - w.cmd, val);
    } else if (off == w.ctl) {
        ch.write_devctl(val);
    } else if (in(off, w.bmdma, bmdma::reg::kSize)) {
        ch.bmdma().write8(off - w.bmdma, val);
    } else {
        return false;
    }
    return true;
}

bool sff_read16(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint16_t &out) {
    if (off == w.cmd) {
        out = ch.read_data();
        return true;
    }
    uint8_t lo, hi;
    if (!sff_read8(ch, w, off, lo))
        return false;
    out = sff_read8(ch, w, off + 1, hi) ? uint16_t(lo | hi << 8) : lo;
    return true;
}

bool sff_write16(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint16_t val) {
    if (off == w.cmd) {
        ch.write_data(val);
        return true;
    }
    if (!sff_write8(ch, w, off, uint8_t(val)))
        return false;
    sff_write8(ch, w, off + 1, uint8_t(val >> 8));
    return true;
}

// Dword accesses: the bus-master block only (the taskfile registers are narrower).
bool sff_read32(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint32_t &out) {
    if (!in(off, w.bmdma, bmdma::reg::kSize))
        return false;
    out = ch.bmdma().read32(off - w.bmdma);
    return true;
}

bool sff_write32(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint32_t val) {
    if (!in(off, w.bmdma, bmdma::reg::kSize))
        return false;
    ch.bmdma().write32(off - w.bmdma, val);
    return true;
}

// ---- a master/slave pair ----

namespace {
SffChannel &selected(SffChannel &m, SffChannel &s) { return s.selected() ? s : m; }
} // namespace

bool sff_pair_read8(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint8_t &out) {
    if (in(off, w.bmdma, bmdma::reg::kSize))
        return sff_read8(m, w, off, out);
    return sff_read8(selected(m, s), w, off, out);
}

bool sff_pair_write8(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint8_t val) {
    if (in(off, w.bmdma, bmdma::reg::kSize))
        return sff_write8(m, w, off, val);
    if (in(off, w.cmd, reg::kCmdBlockSize) && off - w.cmd == reg::kCommand)
        return sff_write8(selected(m, s), w, off, val);
    if (!in(off, w.cmd, reg::kCmdBlockSize) && off != w.ctl)
        return false;
    // a port with no cable has no device to latch anything (its registers read 7Fh)
    for (SffChannel *d : {&m, &s})
        if (d->link())
            sff_write8(*d, w, off, val);
    if (off == w.cmd + reg::kDevice) {
        const bool dev1 = val & reg::DEV_DEV1;
        m.set_selected(!dev1);
        s.set_selected(dev1);
    }
    return true;
}

bool sff_pair_read16(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint16_t &out) {
    if (off == w.cmd) {
        out = selected(m, s).read_data();
        return true;
    }
    uint8_t lo, hi;
    if (!sff_pair_read8(m, s, w, off, lo))
        return false;
    out = sff_pair_read8(m, s, w, off + 1, hi) ? uint16_t(lo | hi << 8) : lo;
    return true;
}

bool sff_pair_write16(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint16_t val) {
    if (off == w.cmd) {
        selected(m, s).write_data(val);
        return true;
    }
    if (!sff_pair_write8(m, s, w, off, uint8_t(val)))
        return false;
    sff_pair_write8(m, s, w, off + 1, uint8_t(val >> 8));
    return true;
}

} // namespace satasim::sff
