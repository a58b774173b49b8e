// The taskfile (SFF) register set of one ATA channel, ATA/ATAPI-7 vol 1 (T13/1532D rev 4b)
// clause 7 "Register descriptions" (numbering as recalled, unconfirmed; the bit meanings
// below were checked against ATA-2/ATA-4 drafts and drive manuals):
//   Command Block (offsets from the command base)    Control Block (from the control base)
//     0 Data (16 bit)                                  0 read: Alternate Status
//     1 read: Error        write: Features                write: Device Control
//     2 Sector Count    3 LBA Low    4 LBA Mid    5 LBA High
//     6 Device
//     7 read: Status       write: Command
// 48-bit addressing (ATA/ATAPI-7 vol 1 4.x "48-bit Address feature set"): Features, Sector
// Count and the LBA registers are two deep; a write pushes the previous value into the
// "previous content", which reads back while Device Control HOB is one; any Command Block
// write clears HOB.
#pragma once

#include <cstdint>

namespace satasim::sff {

namespace reg {
constexpr unsigned kData = 0, kError = 1, kFeature = 1, kNsect = 2, kLbal = 3, kLbam = 4, kLbah = 5,
                   kDevice = 6, kStatus = 7, kCommand = 7, kCmdBlockSize = 8;
// Status (and Alternate Status)
constexpr uint8_t ST_BSY = 0x80, ST_DRDY = 0x40, ST_DF = 0x20, ST_DSC = 0x10, ST_DRQ = 0x08,
                  ST_ERR = 0x01;
// Device Control
constexpr uint8_t CTL_NIEN = 0x02, CTL_SRST = 0x04, CTL_HOB = 0x80;
// Device
constexpr uint8_t DEV_LBA = 0x40, DEV_DEV1 = 0x10;
// What a SATA host adapter's shadow Status reads while PhyRdy is down (no device to own the
// registers): 7Fh (Serial ATA 1.0a, host adapter shadow register behaviour; unconfirmed).
constexpr uint8_t ST_NO_PHY = 0x7F;
} // namespace reg

} // namespace satasim::sff
