// ATA command decode and the non-queued commands (docs/hardware.md 8.2, 8.4, 8.6, 8.8).
#include <algorithm>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Fis;
using sata::Taskfile;
using sc_core::sc_time_stamp;

namespace {
constexpr uint64_t kLba28Sectors = 0x0FFFFFFF;

bool is_power_of_two(unsigned v) { return v && !(v & (v - 1)); }
} // namespace

bool SataDisk::Impl::finish_ok(uint64_t e, uint64_t lba, uint16_t count, uint8_t device) {
    if (!alive(e))
        return false;
    return send(sata::make_reg_d2h(sata::kAtaStatusGood, 0, lba, device, count, true));
}

bool SataDisk::Impl::finish_error(uint64_t e, const Taskfile &tf, uint8_t error, uint64_t lba,
                                  uint8_t status) {
    if (!alive(e))
        return false;
    trace_error("command failed", tf, status, error, lba);
    return send(error_fis(tf, status, error, lba));
}

// The error Register FIS of a non-queued command. Status, Error and the LBA of the first
// failing sector are ATA's (ACS-3 READ DMA 7.21.5 Error Outputs); Count and Device are not
// defined there, and drives differ (device key d2h_regs, docs/hardware.md 8.7): Count 0 and
// Device 40h (Cleared, the model's default); the command's own Count and Device (Echo: dmesg
// corpus 28, 31 "cmd c8/00:08:40:28:1c/.../e0" -> "res 51/40:08:40:28:1c/.../e0"); Count 0
// and only LBA 27:24 in Device (LbaBits: corpus 27 "cmd .../e1" -> "res 51/40:00:.../01").
sata::Fis SataDisk::Impl::error_fis(const Taskfile &tf, uint8_t status, uint8_t error, uint64_t lba) const {
    switch (cfg.d2h_regs) {
    case DiskConfig::D2hRegs::Echo:
        return sata::make_reg_d2h(status, error, lba, tf.device, tf.count, true);
    case DiskConfig::D2hRegs::LbaBits:
        return sata::make_reg_d2h(status, error, lba, uint8_t((lba >> 24) & 0x0F), 0, true);
    case DiskConfig::D2hRegs::Cleared:
        break;
    }
    return sata::make_reg_d2h(status, error, lba, 0x40, 0, true);
}

// Address and length of a read/write command. False: not addressable this way (ABRT).
bool SataDisk::Impl::decode_rw(const Taskfile &tf, bool ext, bool write, Xfer &x) const {
    x.write = write;
    x.fua = tf.command == op::kWriteDmaFuaExt || tf.command == op::kWriteMultipleFuaExt;
    if (ext) {
        if (!cfg.lba48)
            return false;
        x.lba = tf.lba & 0xFFFFFFFFFFFFull;
        x.sectors = tf.count ? tf.count : 65536u;
        return true;
    }
    uint8_t n = uint8_t(tf.count);
    x.sectors = n ? n : 256u;
    if (tf.device & 0x40) {
        x.lba = (tf.lba & 0xFFFFFF) | uint64_t(tf.device & 0x0F) << 24;
    } else {
        // Legacy CHS with the default 16 heads x 63 sectors geometry.
        uint64_t sector = tf.lba & 0xFF, cyl = (tf.lba >> 8) & 0xFFFF, head = tf.device & 0x0F;
        if (sector == 0)
            return false;
        x.lba = (cyl * 16 + head) * 63 + sector - 1;
    }
    return true;
}

bool SataDisk::Impl::range_ok(const Xfer &x, bool lba28) const {
    uint64_t limit = capacity();
    if (lba28)
        limit = std::min(limit, kLba28Sectors);
    return x.lba < limit && x.sectors <= limit - x.lba;
}

void SataDisk::Impl::execute(const Taskfile &tf) {
    const uint64_t e = epoch;
    const uint8_t c = tf.command;
    // SET MAX ADDRESS (EXT) is taken only right after READ NATIVE MAX ADDRESS (EXT)
    const bool after_rnm = after_read_native_max;
    after_read_native_max = false;
    auto abort_cmd = [&] { finish_error(e, tf, sata::kAtaAbrt, tf.lba); };
    // The data-out phase failed on the wire (R_ERR either way): ICRC|ABRT, unless a reset
    // is what ended it.
    auto data_phase_failed = [&](const Xfer &x) {
        finish_error(e, tf, sata::kAtaIcrc | sata::kAtaAbrt, x.lba);
    };
    auto idnf = [&](const Xfer &x, bool lba28) {
        uint64_t limit = lba28 ? std::min(capacity(), kLba28Sectors) : capacity();
        finish_error(e, tf, sata::kAtaIdnf | sata::kAtaAbrt, std::max(x.lba, limit));
    };
    auto media_busy = [&](const Xfer &x) {
        power_mode = 0xFF;
        return busy_for(e, overhead() + media_access(x.lba, x.sectors,
                                                     sc_time_stamp() + overhead()));
    };
    // An injected device error (faults.cpp) ends the command with its status and error.
    auto fail = [&](const MediaVerdict &v) { finish_error(e, tf, v.error, v.lba, v.status); };
    // What every non-queued read, write and verify checks first: the taskfile addresses
    // sectors this way (ABRT otherwise, as for READ/WRITE MULTIPLE before SET MULTIPLE), the
    // range fits (IDNF), then what the injected media faults say of it. False: ended.
    auto accept_rw = [&](bool ext, bool write, bool multiple, Xfer &x, MediaVerdict &v) {
        if (!decode_rw(tf, ext, write, x) || (multiple && multi_count == 0)) {
            abort_cmd();
            return false;
        }
        if (!range_ok(x, !ext)) {
            idnf(x, !ext);
            return false;
        }
        v = check_media(tf, false, &x);
        // an armed slow-down: the drive takes its time before the media access
        const sc_core::sc_time late = slow_delay(tf, false, x);
        return late == sc_core::SC_ZERO_TIME || busy_for(e, late);
    };
    // A write whose data is in: the injected fault's status, or committed and good status.
    auto finish_write = [&](const Xfer &x, const MediaVerdict &v) {
        if (v.fail)
            return fail(v);
        if (commit_write(e, x)) {
            media_written(x);
            finish_ok(e);
        }
    };
    // Commands without an LBA range can only be hit by ABRT / write-fault injections.
    switch (c) {
    case op::kReadSectors: case op::kReadSectorsExt: case op::kReadMultiple:
    case op::kReadMultipleExt: case op::kWriteSectors: case op::kWriteSectorsExt:
    case op::kWriteMultiple: case op::kWriteMultipleExt: case op::kWriteMultipleFuaExt:
    case op::kReadDma: case op::kReadDmaExt: case op::kWriteDma: case op::kWriteDmaExt:
    case op::kWriteDmaFuaExt: case op::kReadVerify: case op::kReadVerifyExt:
        break;
    default:
        if (const MediaVerdict v = check_media(tf, false, nullptr); v.fail) {
            if (busy_for(e, overhead()))
                fail(v);
            return;
        }
        break;
    }

    switch (c) {
    case op::kIdentify: {
        if (!busy_for(e, overhead()))
            return;
        if (take_identify_failure())
            return abort_cmd();
        std::vector<uint16_t> w = identify();
        pio_in(e, tf, 1, [&](uint32_t) {
            std::vector<uint8_t> b(512);
            for (size_t i = 0; i < 256; ++i) {
                b[2 * i] = uint8_t(w[i]);
                b[2 * i + 1] = uint8_t(w[i] >> 8);
            }
            return b;
        });
        return;
    }

    case op::kReadSectors:
    case op::kReadSectorsExt:
    case op::kReadMultiple:
    case op::kReadMultipleExt: {
        const bool ext = c == op::kReadSectorsExt || c == op::kReadMultipleExt;
        const bool multiple = c == op::kReadMultiple || c == op::kReadMultipleExt;
        Xfer x;
        MediaVerdict v;
        if (!accept_rw(ext, false, multiple, x, v))
            return;
        if (!media_busy(x))
            return;
        if (v.fail)
            return fail(v); // no DRQ block is sent for a failing read
        const uint32_t per = multiple ? multi_count : 1;
        const uint32_t blocks = (x.sectors + per - 1) / per;
        pio_in(e, tf, blocks, [&](uint32_t i) {
            uint32_t n = std::min(per, x.sectors - i * per);
            std::vector<uint8_t> b(size_t(n) * sector_bytes());
            media_read(x.lba + uint64_t(i) * per, n, b.data());
            return b;
        });
        return;
    }

    case op::kWriteSectors:
    case op::kWriteSectorsExt:
    case op::kWriteMultiple:
    case op::kWriteMultipleExt:
    case op::kWriteMultipleFuaExt: {
        const bool ext = c == op::kWriteSectorsExt || c == op::kWriteMultipleExt ||
                         c == op::kWriteMultipleFuaExt;
        const bool multiple = c == op::kWriteMultiple || c == op::kWriteMultipleExt ||
                              c == op::kWriteMultipleFuaExt;
        Xfer x;
        MediaVerdict v;
        if (!accept_rw(ext, true, multiple, x, v))
            return;
        if (!busy_for(e, overhead()))
            return;
        if (v.fail && !v.after_data)
            return fail(v);
        // A write fault takes the data and fails to write it.
        if (!pio_out(e, tf, x.sectors, multiple ? multi_count : 1,
                     [&](uint32_t first, uint32_t n, const uint8_t *data) {
                         if (!v.fail)
                             cache_write(x.lba + first, n, data, write_through(x));
                     }))
            return data_phase_failed(x);
        return finish_write(x, v);
    }

    case op::kReadDma:
    case op::kReadDmaExt: {
        const bool ext = c == op::kReadDmaExt;
        Xfer x;
        MediaVerdict v;
        if (!accept_rw(ext, false, false, x, v))
            return;
        if (!media_busy(x))
            return;
        // A Data FIS the host (or a port multiplier's fan-out port) answered with R_ERR ends
        // the command with ICRC|ABRT, as the data-out phase does: the drive's Register FIS
        // reads 51/84 (dmesg corpus 52: "res 51/84:..." after a READ DMA EXT's bad CRC behind
        // a SiI3726), unless a reset is what ended it.
        if (v.fail) {
            // The sectors before the bad one stream out, then the error status.
            if (v.good && !dma_in_data(e, x.lba, v.good))
                return (void)data_phase_failed(x);
            return fail(v);
        }
        if (!dma_in_data(e, x.lba, x.sectors))
            return (void)data_phase_failed(x);
        finish_ok(e);
        return;
    }

    case op::kWriteDma:
    case op::kWriteDmaExt:
    case op::kWriteDmaFuaExt: {
        const bool ext = c != op::kWriteDma;
        Xfer x;
        MediaVerdict v;
        if (!accept_rw(ext, true, false, x, v))
            return;
        if (!busy_for(e, overhead()))
            return;
        if (v.fail && !v.after_data)
            return fail(v);
        if (!dma_out_data(e, x.lba, x.sectors, false, write_through(x), v.fail))
            return data_phase_failed(x);
        return finish_write(x, v);
    }

    case op::kReadVerify:
    case op::kReadVerifyExt: {
        const bool ext = c == op::kReadVerifyExt;
        Xfer x;
        MediaVerdict v;
        if (!accept_rw(ext, false, false, x, v))
            return;
        if (media_busy(x))
            v.fail ? fail(v) : (void)finish_ok(e);
        return;
    }

    case op::kFlush:
    case op::kFlushExt:
        if (c == op::kFlushExt && !cfg.lba48)
            return abort_cmd();
        if (busy_for(e, overhead() + flush_time()))
            finish_ok(e);
        return;

    case op::kSetFeatures:
        set_features(e, tf);
        return;

    case op::kSetMultiple: {
        unsigned n = tf.count & 0xFF;
        if (n != 0 && (!is_power_of_two(n) || n > max_multi()))
            return abort_cmd();
        multi_count = n;
        if (busy_for(e, overhead()))
            finish_ok(e);
        return;
    }

    case op::kCheckPower:
        if (busy_for(e, overhead()))
            finish_ok(e, 0, power_mode);
        return;

    case op::kStandbyImm:
    case op::kStandby:
    case op::kIdleImm:
    case op::kIdle:
        if (c == op::kStandbyImm || c == op::kStandby) {
            if (!busy_for(e, overhead() + flush_time()))
                return;
            power_mode = 0x00;
        } else {
            power_mode = 0x80;
            if (!busy_for(e, overhead()))
                return;
        }
        finish_ok(e);
        return;

    // READ NATIVE MAX ADDRESS (EXT): the highest LBA of the media, whatever SET MAX did.
    case op::kReadNativeMax: {
        uint64_t max = std::min(native_capacity(), kLba28Sectors) - 1;
        if (busy_for(e, overhead()) && finish_ok(e, max & 0xFFFFFF, 0, uint8_t(0x40 | ((max >> 24) & 0x0F))))
            after_read_native_max = true;
        return;
    }
    case op::kReadNativeMaxExt:
        if (!cfg.lba48)
            return abort_cmd();
        if (busy_for(e, overhead()) && finish_ok(e, native_capacity() - 1, 0, 0x40))
            after_read_native_max = true;
        return;

    case op::kSetMaxAddress:
    case op::kSetMaxAddressExt:
        return set_max_address(e, tf, c == op::kSetMaxAddressExt, after_rnm);

    case op::kExecDiag:
        if (busy_for(e, overhead()) && alive(e))
            send(signature_fis(true));
        return;

    case op::kInitDevParams:
        if (busy_for(e, overhead()))
            finish_ok(e);
        return;

    case op::kReadLogExt:
        read_log_ext(e, tf);
        return;

    case op::kDataSetManagement:
        data_set_management(e, tf);
        return;

    case op::kSmart:
        smart(e, tf);
        return;

    default:
        // Unknown or unsupported opcode (also FPDMA on a drive without NCQ).
        trace("disk.unsupported_command", {{"cmd", TraceValue::hex(c)}});
        abort_cmd();
        return;
    }
}

// SET MAX ADDRESS (F9h) / SET MAX ADDRESS EXT (37h), ATA8-ACS (docs/device.md 2): the LBA
// registers hold the new highest accessible LBA; Count bit 0, VV ("value volatile"), set keeps
// the setting over power-on and hardware reset, clear makes it last only until the next one
// (a COMRESET included), when the last kept setting is back. Aborted without the HPA feature
// set, unless READ NATIVE MAX ADDRESS (EXT) came just before, and for a second kept setting
// since power-on; an LBA beyond the native maximum is IDNF. IDENTIFY then reports the new
// capacity (words 60-61, 100-103).
void SataDisk::Impl::set_max_address(uint64_t e, const Taskfile &tf, bool ext, bool after_rnm) {
    const uint64_t lba = ext ? tf.lba & 0xFFFFFFFFFFFFull : (tf.lba & 0xFFFFFF) | uint64_t(tf.device & 0x0F) << 24;
    const bool vv = tf.count & 1; // kept over power-on / hardware reset
    const uint64_t native = native_capacity();
    if (!cfg.hpa_sectors || (ext && !cfg.lba48) || !after_rnm || (vv && nv_max_set))
        return (void)finish_error(e, tf, sata::kAtaAbrt, tf.lba);
    if (lba >= native || (!ext && lba > kLba28Sectors - 1))
        return (void)finish_error(e, tf, sata::kAtaIdnf | sata::kAtaAbrt, tf.lba);
    if (!busy_for(e, overhead()))
        return;
    if (!vv) {
        max_vol = lba + 1;
    } else {
        max_nv = lba + 1 == native ? 0 : lba + 1;
        max_vol = 0;
        nv_max_set = true;
    }
    trace("disk.set_max", {{"max_lba", TraceValue::hex(lba)}, {"volatile", TraceValue::boolean(!vv)}},
          "accessible sectors now " + std::to_string(capacity()) + " of " + std::to_string(native));
    finish_ok(e, lba, 0, 0x40);
}

// SET FEATURES (docs/hardware.md 8.4).
void SataDisk::Impl::set_features(uint64_t e, const Taskfile &tf) {
    const uint8_t sub = tf.feature;
    const uint8_t arg = uint8_t(tf.count);
    bool ok = true;
    switch (sub) {
    case 0x03: // set transfer mode
        if (arg == 0x00 || arg == 0x01) {
            // PIO default mode
        } else if (arg >= 0x08 && arg <= 0x0C && unsigned(arg - 0x08) <= cfg.pio_max) {
            // PIO flow control mode n
        } else if (arg >= 0x20 && arg <= 0x22) {
            mwdma_selected = arg - 0x20;
            udma_selected = -1;
        } else if (arg >= 0x40 && arg <= 0x46 && unsigned(arg - 0x40) <= cfg.udma_max) {
            udma_selected = arg - 0x40;
            mwdma_selected = -1;
        } else {
            ok = false;
        }
        break;
    case 0x02:
    case 0x82:
        ok = cfg.write_cache;
        if (ok && sub == 0x82 && wcache_enabled) {
            if (!busy_for(e, flush_time()))
                return;
        }
        if (ok)
            wcache_enabled = sub == 0x02;
        break;
    case 0xAA:
    case 0x55:
        lookahead_enabled = sub == 0xAA;
        break;
    case 0x10:
    case 0x90:
        if (arg == 0x02)
            auto_activate = sub == 0x10;
        else if (arg == 0x03 && cfg.dipm) // device-initiated interface power management
            dipm_enabled = sub == 0x10;
        else if (arg == 0x09 && cfg.devsleep) // DevSleep (SATA 3.2)
            devslp_enabled = sub == 0x10;
        else if (arg == 0x06)
            ok = sub == 0x10; // settings preservation is always on (MEM: cannot disable)
        else
            ok = false;
        break;
    default:
        ok = false;
        break;
    }
    if (!ok) {
        finish_error(e, tf, sata::kAtaAbrt, tf.lba);
        return;
    }
    trace("disk.set_features",
          {{"feature", TraceValue::hex(sub)}, {"value", TraceValue::hex(arg)}});
    if (busy_for(e, overhead()))
        finish_ok(e);
}

// SMART RETURN STATUS (docs/device.md 5): Feature DAh with the SMART key (LBA mid 4Fh, LBA high
// C2h); the answer in LBA mid/high: 4Fh/C2h no threshold exceeded, F4h/2Ch a threshold
// exceeded. READ DATA (D0h): the 512-byte SMART data structure, PIO data-in. ENABLE
// OPERATIONS (D8h, smartctl -s on and smartd send it with LBA low 01h): SMART is always
// enabled here, so nothing changes; the registers come back as written. Without the feature
// set, with a wrong key or another subcommand: ABRT.
void SataDisk::Impl::smart(uint64_t e, const Taskfile &tf) {
    const uint8_t mid = uint8_t(tf.lba >> 8), high = uint8_t(tf.lba >> 16);
    if (cfg.smart == DiskConfig::Smart::None || (tf.feature != 0xDA && tf.feature != 0xD0 && tf.feature != 0xD8) ||
        mid != 0x4F || high != 0xC2)
        return (void)finish_error(e, tf, sata::kAtaAbrt, tf.lba);
    if (!busy_for(e, overhead()))
        return;
    if (tf.feature == 0xD8) {
        trace("disk.smart_enable", {});
        finish_ok(e, tf.lba & 0xFFFFFF, 0, tf.device & 0xF0);
        return;
    }
    if (tf.feature == 0xD0) {
        // revision 0010h, no attribute entries (the model keeps none), offline collection and
        // self-test never run, SMART capability 0003h (saves data over power cycles, supports
        // ENABLE/DISABLE ATTRIBUTE AUTOSAVE), error logging supported; byte 511 the checksum
        std::vector<uint8_t> d(512, 0);
        d[0] = 0x10;
        d[368] = 0x03;
        d[370] = 0x01;
        uint8_t sum = 0;
        for (size_t i = 0; i < 511; ++i)
            sum = uint8_t(sum + d[i]);
        d[511] = uint8_t(0x100 - sum);
        trace("disk.smart_read_data", {});
        pio_in(e, tf, 1, [&](uint32_t) { return d; });
        return;
    }
    const bool exceeded = cfg.smart == DiskConfig::Smart::ThresholdExceeded;
    trace("disk.smart_status", {{"threshold_exceeded", TraceValue::boolean(exceeded)}});
    finish_ok(e, (tf.lba & 0xFF) | (exceeded ? 0x2CF400u : 0xC24F00u), 0, tf.device & 0xF0);
}

// The IDENTIFY DEVICE data log (ACS-3 9.10): page 00h lists the pages there are (byte 8 the
// count, then their numbers); page 08h, SATA settings, holds the DEVSLP timing variables in
// its qword at 30h (bits 4:0 MDAT, 15:8 DETO, 63 valid). Each page's header qword: revision
// 0001h, the page number in byte 2.
std::vector<uint8_t> SataDisk::Impl::identify_log_page(uint32_t page) const {
    std::vector<uint8_t> p(512, 0);
    p[0] = 0x01, p[2] = uint8_t(page), p[7] = 0x80; // revision, page, valid (header)
    if (page == 0) {
        p[8] = 9;
        for (unsigned i = 0; i < 9; ++i)
            p[9 + i] = uint8_t(i);
    } else if (page == 8) {
        p[0x30] = uint8_t(cfg.devsleep_mdat_ms & 0x1F);
        p[0x31] = uint8_t(cfg.devsleep_deto_ms);
        p[0x37] = 0x80;
    }
    return p;
}

// READ LOG EXT (docs/hardware.md 8.6): log directory (00h) and NCQ Command Error (10h).
void SataDisk::Impl::read_log_ext(uint64_t e, const Taskfile &tf) {
    const uint8_t log = uint8_t(tf.lba);
    const uint32_t page = uint32_t((tf.lba >> 8) & 0xFF) | uint32_t((tf.lba >> 32) & 0xFF) << 8;
    const uint32_t count = tf.count;
    const bool send_recv = cfg.ncq && cfg.ncq_trim; // the NCQ Send and Receive log (13h)
    // The IDENTIFY DEVICE data log (30h), pages 00h-08h, on a DevSleep drive (where its SATA
    // settings page holds the DEVSLP timing variables); the model fills pages 00h and 08h.
    const uint32_t id_pages = cfg.devsleep ? 9 : 0;
    uint32_t pages = log == 0x00 ? 1 : log == 0x10 ? 1 : log == 0x13 && send_recv ? 1 : log == 0x30 ? id_pages : 0;
    if (count == 0 || page >= pages || count > pages - page) {
        finish_error(e, tf, sata::kAtaAbrt, tf.lba);
        return;
    }
    if (!busy_for(e, overhead()))
        return;
    std::vector<uint8_t> data;
    if (log == 0x00) {
        data.assign(512, 0);
        data[0] = 0x01; // general purpose log directory version 1
        data[2 * 0x10] = 1;
        if (send_recv)
            data[2 * 0x13] = 1;
        data[2 * 0x30] = uint8_t(id_pages);
    } else if (log == 0x30) {
        data = identify_log_page(page);
    } else if (log == 0x13) {
        data = ncq_send_recv_log_page();
    } else {
        data = ncq_log_page();
    }
    if (!pio_in(e, tf, 1, [&](uint32_t) { return data; }))
        return;
    if (log == 0x10 && ncq_error_state) {
        ncq_error_state = false;
        trace("disk.ncq_error_cleared", {});
        work_event.notify(sc_core::SC_ZERO_TIME);
    }
}

} // namespace satasim::device
