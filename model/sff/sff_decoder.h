// Where a controller puts one SFF channel's three register blocks in its window (Command
// Block, Control Block, bus master), and the access decode every taskfile controller does
// alike: byte registers, the 16-bit Data register, the bus-master block at any width.
// A controller's own registers are decoded by the controller before or after these.
#pragma once

#include <cstdint>

#include "model/sff/sff_channel.h"

namespace satasim::sff {

struct ChannelWindow {
    uint32_t cmd;   // Command Block base (8 bytes)
    uint32_t ctl;   // Alternate Status / Device Control
    uint32_t bmdma; // bus-master block (8 bytes)
};

// Each returns true if off belongs to the channel's blocks (and did the access).
bool sff_read8(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint8_t &out);
bool sff_write8(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint8_t val);
bool sff_read16(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint16_t &out);
bool sff_write16(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint16_t val);
bool sff_read32(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint32_t &out);
bool sff_write32(SffChannel &ch, const ChannelWindow &w, uint32_t off, uint32_t val);

// The same decode for a channel with two devices (master m = device 0, slave s = device 1;
// SffChannel::pair_as_slave_of). As on a parallel ATA cable (ATA-3 6.1: "the register
// contents go to both devices", the host tells them apart by the Device register's DEV
// bit): writes to Features, Sector Count, the LBA registers, Device and Device Control go to
// both devices; a Device write selects the device its DEV bit names; Command and the Data
// register go to the selected device only; every read is the selected device's. The
// bus-master block is the channel's one engine (the master's).
bool sff_pair_read8(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint8_t &out);
bool sff_pair_write8(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint8_t val);
bool sff_pair_read16(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint16_t &out);
bool sff_pair_write16(SffChannel &m, SffChannel &s, const ChannelWindow &w, uint32_t off, uint16_t val);

} // namespace satasim::sff
