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

} // namespace satasim::sff
