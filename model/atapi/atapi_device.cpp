// The ATAPI drive module: link callbacks, the transport process (queues received FISes), the
// command process (the only sender), resets with the packet signature, and the ATA commands a
// packet device takes besides PACKET (ATA8-ACS 7: IDENTIFY DEVICE and every other ATA
// command aborted with the signature in the registers).
#include "model/atapi/atapi_impl.h"

namespace satasim::atapi {

using sata::Fis;
using sata::FisType;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr size_t kRxQueueDepth = 4;
constexpr uint64_t kPacketSignatureLba = 0xEB1401; // LBA high EBh, mid 14h, low 01h
} // namespace

AtapiDevice::Impl::Impl(AtapiDevice &dev)
    : d(dev), cfg(dev.cfg_), unit(dev.cfg_.inquiry, dev.cfg_.disc, dev.cfg_.medium) {
    ready_at = sc_time(cfg.reset_ready_ms, sc_core::SC_MS);
    udma_selected = cfg.dma ? int(cfg.udma_max) : -1;
}

void AtapiDevice::Impl::trace(const char *name,
                              std::vector<std::pair<std::string, TraceValue>> fields,
                              const std::string &msg) {
    if (!d.trace_)
        return;
    TraceRecord r;
    r.src = d.name();
    r.name = name;
    r.fields = std::move(fields);
    r.msg = msg;
    d.trace_->emit(r);
}

// ATA8-ACS table "Device signatures": count 01h, LBA low 01h, mid 14h, high EBh.
Fis AtapiDevice::Impl::signature_fis(bool irq, uint8_t status, uint8_t error) const {
    return sata::make_reg_d2h(status, error, kPacketSignatureLba, 0x00, 1, irq);
}

void AtapiDevice::Impl::start_reset(const char *kind, bool srst_held) {
    ++epoch;
    hung = false; // a reset restarts a hung firmware
    pending_cmd.reset();
    data_in.clear();
    reset_state = srst_held ? ResetState::SrstHeld : ResetState::Resetting;
    ready_at = sc_time_stamp() + sc_time(cfg.reset_ready_ms, sc_core::SC_MS);
    trace("atapi.reset", {{"kind", TraceValue::str(kind)}});
    work_event.notify(SC_ZERO_TIME);
    data_event.notify(SC_ZERO_TIME);
}

bool AtapiDevice::Impl::send(const Fis &fis) {
    if (!link)
        return false;
    if (fis_trace)
        trace("atapi.fis_tx", {}, sata::describe(fis));
    if (link->send_from_device(fis) != link::FrameStatus::Ok) {
        trace("atapi.tx_failed", {}, sata::describe(fis));
        return false;
    }
    return true;
}

void AtapiDevice::Impl::transport_thread() {
    for (;;) {
        while (rxq.empty())
            sc_core::wait(rx_event);
        Fis fis = std::move(rxq.front());
        rxq.pop_front();
        if (rxq.size() + 1 == kRxQueueDepth && link)
            link->receiver_ready_changed();
        dispatch(fis);
    }
}

void AtapiDevice::Impl::dispatch(const Fis &fis) {
    if (fis_trace)
        trace("atapi.fis_rx", {}, sata::describe(fis));
    if (fis.type() == FisType::Data) {
        data_in.push_back(fis);
        data_event.notify(SC_ZERO_TIME);
        return;
    }
    if (fis.type() != FisType::RegH2D) {
        trace("atapi.fis_ignored", {}, sata::describe(fis));
        return;
    }
    Taskfile tf = sata::parse_taskfile(fis);
    if (!(fis.at(1) & sata::kFisCommand)) { // Device Control: SRST edges
        if (tf.control & sata::kAtaSrst) {
            if (reset_state != ResetState::SrstHeld)
                start_reset("srst", true);
        } else if (reset_state == ResetState::SrstHeld) {
            reset_state = ResetState::Resetting;
            ready_at = sc_time_stamp() + sc_time(cfg.reset_ready_ms, sc_core::SC_MS);
            work_event.notify(SC_ZERO_TIME);
        }
        return;
    }
    if (reset_state != ResetState::None || pending_cmd) {
        trace("atapi.cmd_ignored", {{"cmd", TraceValue::hex(tf.command)}},
              reset_state != ResetState::None ? "device in reset" : "command while one is active");
        return;
    }
    pending_cmd = tf;
    work_event.notify(SC_ZERO_TIME);
}

bool AtapiDevice::Impl::handle_reset() {
    for (;;) {
        if (reset_state == ResetState::None)
            return true;
        if (reset_state == ResetState::SrstHeld || !phy_up) {
            sc_core::wait(work_event);
            continue;
        }
        sc_time now = sc_time_stamp();
        if (now < ready_at) {
            sc_core::wait(ready_at - now, work_event);
            continue;
        }
        uint64_t e = epoch;
        // Diagnostics passed (error 01h); a packet device leaves DRDY clear (status 00h).
        bool ok = send(signature_fis(false, 0x00, 0x01));
        if (!alive(e))
            continue;
        if (ok) {
            reset_state = ResetState::None;
            trace("atapi.ready", {{"signature", TraceValue::hex(0xEB140101)}});
            return true;
        }
        sc_core::wait(work_event);
    }
}

void AtapiDevice::Impl::command_thread() {
    for (;;) {
        handle_reset();
        if (!pending_cmd) {
            sc_core::wait(work_event);
            continue;
        }
        uint64_t e = epoch;
        Taskfile tf = *pending_cmd;
        data_in.clear();
        execute(tf);
        if (alive(e))
            pending_cmd.reset();
    }
}

// The status phase's Register D2H FIS: the Device register A0h (its obsolete bits 7 and 5 set,
// as the drives of the corpus report it: dmesg corpus 40, a BD drive on AHCI, "res
// 50/00:03:00:00:00/00:00:00:00:00/a0"; 29, PATA, the same).
bool AtapiDevice::Impl::finish(uint64_t e, uint8_t status, uint8_t error, uint16_t count) {
    if (!alive(e))
        return false;
    return send(sata::make_reg_d2h(status, error, 0, 0xA0, count, true));
}

// The fault engine sees the command (an ATA command as it arrives, a PACKET command once its
// CDB has); false: a hang it armed took the drive (the command never ends).
bool AtapiDevice::Impl::observe(uint8_t opcode, bool packet, uint32_t lba, uint32_t blocks) {
    ++cmd_seq;
    if (observer)
        observer(CommandSeen{opcode, packet, lba, blocks, cmd_seq});
    if (hang_id.empty())
        return true;
    hang_now();
    return false;
}

// hang: the firmware stops where it is (no FIS), until a reset moves the epoch on.
void AtapiDevice::Impl::hang_now() {
    const uint64_t e = epoch;
    hung = true;
    trace("fault.effect", {{"id", TraceValue::str(hang_id)}}, "drive hangs (no status until a reset)");
    hang_id.clear();
    while (alive(e))
        sc_core::wait(work_event);
}

void AtapiDevice::Impl::execute(const Taskfile &tf) {
    const uint64_t e = epoch;
    trace("atapi.cmd", {{"cmd", TraceValue::hex(tf.command)}});
    if (tf.command != ata_op::kPacket && !observe(tf.command, false, 0, 0))
        return;
    switch (tf.command) {
    case ata_op::kPacket:
        packet(e, tf);
        return;
    case ata_op::kIdentifyPacket: {
        if (!busy_for(e, sc_time(cfg.cmd_overhead_us, sc_core::SC_US)))
            return;
        std::vector<uint16_t> w = identify();
        std::vector<uint8_t> b(512);
        for (size_t i = 0; i < 256; ++i) {
            b[2 * i] = uint8_t(w[i]);
            b[2 * i + 1] = uint8_t(w[i] >> 8);
        }
        // PIO data-in, one 512-byte block: the PIO Setup's ending status ends the command.
        Taskfile regs = tf;
        if (!send(sata::make_pio_setup(true, true, kStatusDrq, 0, kStatusGood, 512, regs)) || !alive(e))
            return;
        send(sata::make_data(b.data(), b.size()));
        return;
    }
    case ata_op::kDeviceReset:
        // DEVICE RESET (ATA8-ACS 7.6): the packet device's own reset; the signature ends it.
        unit.reset();
        trace("atapi.reset", {{"kind", TraceValue::str("device_reset")}});
        if (busy_for(e, sc_time(cfg.reset_ready_ms, sc_core::SC_MS)))
            send(signature_fis(true, 0x00, 0x01));
        return;
    case ata_op::kExecDiag:
        if (busy_for(e, sc_time(cfg.reset_ready_ms, sc_core::SC_MS)))
            send(signature_fis(true, 0x00, 0x01));
        return;
    case ata_op::kSetFeatures:
        if (tf.feature == 0x03) { // set transfer mode
            const unsigned mode = tf.count & 0xFF;
            if ((mode >> 3) == 8 && (mode & 7) <= cfg.udma_max && cfg.dma)
                udma_selected = int(mode & 7);
            else if ((mode >> 3) != 1 && (mode >> 3) != 0 && (mode >> 3) != 4) {
                finish(e, kStatusError, sata::kAtaAbrt, 0);
                return;
            }
        }
        finish(e, kStatusGood, 0, 0);
        return;
    case ata_op::kCheckPower:
        finish(e, kStatusGood, 0, 0xFF);
        return;
    case ata_op::kIdleImm:
    case ata_op::kStandbyImm:
        finish(e, kStatusGood, 0, 0);
        return;
    default:
        // IDENTIFY DEVICE and every other ATA command: aborted, the signature in the
        // registers (ATA8-ACS 7.12.2) so the host learns what it talks to.
        trace("atapi.aborted", {{"cmd", TraceValue::hex(tf.command)}}, "not a packet device command");
        if (alive(e))
            send(signature_fis(true, kStatusError, sata::kAtaAbrt));
        return;
    }
}

// ---------------------------------------------------------------- AtapiDevice

AtapiDevice::AtapiDevice(sc_core::sc_module_name name, const AtapiConfig &cfg, ModelTrace *trace)
    : sc_core::sc_module(name), cfg_(cfg), trace_(trace), impl_(std::make_unique<Impl>(*this)) {
    SC_HAS_PROCESS(AtapiDevice);
    SC_THREAD(transport_proc);
    SC_THREAD(command_proc);
}

AtapiDevice::~AtapiDevice() = default;

void AtapiDevice::transport_proc() { impl_->transport_thread(); }
void AtapiDevice::command_proc() { impl_->command_thread(); }
void AtapiDevice::connect(link::SataLink *link) { impl_->link = link; }
std::vector<uint16_t> AtapiDevice::identify_packet_words() const { return impl_->identify(); }
MmcUnit &AtapiDevice::unit() { return impl_->unit; }
const MmcUnit &AtapiDevice::unit() const { return impl_->unit; }
void AtapiDevice::set_fis_trace(bool on) { impl_->fis_trace = on; }
void AtapiDevice::set_command_observer(std::function<void(const CommandSeen &)> fn) {
    impl_->observer = std::move(fn);
}
void AtapiDevice::inject_hang(const std::string &id) {
    impl_->hang_id = id;
    // armed by a time trigger while the drive is idle: it hangs on its next command
}
void AtapiDevice::inject_check_condition(const Sense &s, bool abrt, const std::string &id) {
    impl_->check_sense = s;
    impl_->check_abrt = abrt;
    impl_->check_id = id;
}
void AtapiDevice::clear_faults() {
    impl_->hang_id.clear();
    impl_->check_sense.reset();
    impl_->check_id.clear();
}

void AtapiDevice::power_on_reset() {
    Impl &m = *impl_;
    m.unit = MmcUnit(cfg_.inquiry, cfg_.disc, cfg_.medium);
    m.udma_selected = cfg_.dma ? int(cfg_.udma_max) : -1;
    m.rxq.clear();
    m.cmd_seq = 0;
    m.start_reset("power_on", false);
}

namespace {
std::vector<std::pair<std::string, TraceValue>> tray_fields(const MmcUnit &u) {
    return {{"tray", TraceValue::str(u.tray_open() ? "open" : "closed")},
            {"medium", TraceValue::boolean(u.medium_present())},
            {"unit_attention", TraceValue::boolean(u.unit_attention_pending())}};
}
} // namespace

bool AtapiDevice::open_tray() {
    bool ok = impl_->unit.open_tray();
    impl_->trace("atapi.event", tray_fields(impl_->unit),
                 ok ? "tray opened" : "eject refused: medium removal prevented");
    return ok;
}

void AtapiDevice::close_tray() {
    impl_->unit.close_tray();
    impl_->trace("atapi.event", tray_fields(impl_->unit), "tray closed");
}

void AtapiDevice::change_medium(const Disc &d) {
    impl_->unit.change_medium(d);
    auto f = tray_fields(impl_->unit);
    f.emplace_back("disc_seed", TraceValue::integer(int64_t(impl_->unit.disc().seed)));
    impl_->trace("atapi.event", std::move(f), "medium changed");
}

void AtapiDevice::remove_disc() {
    impl_->unit.remove_disc();
    impl_->trace("atapi.event", tray_fields(impl_->unit), "disc removed");
}

void AtapiDevice::load_disc(const Disc &d) {
    impl_->unit.load_disc(d);
    impl_->trace("atapi.event", tray_fields(impl_->unit), "disc placed in the tray");
}

bool AtapiDevice::receive_fis(const sata::Fis &fis) {
    if (fis.bytes.size() < 4 || fis.bytes.size() % 4)
        return false;
    size_t fixed = sata::fis_fixed_length(fis.type());
    if (fis.type() == FisType::Data) {
        if (fis.bytes.size() > 4 + sata::kMaxDataFisPayload)
            return false;
    } else if (fixed == 0 || fis.bytes.size() != fixed) {
        return false;
    }
    impl_->rxq.push_back(fis);
    impl_->rx_event.notify(SC_ZERO_TIME);
    return true;
}

bool AtapiDevice::ready_to_receive() const { return impl_->rxq.size() < kRxQueueDepth; }

void AtapiDevice::phy_changed(bool ready, link::Gen) {
    Impl &m = *impl_;
    m.phy_up = ready;
    if (!ready && m.reset_state == Impl::ResetState::None) {
        m.rxq.clear();
        m.start_reset("link_lost", false);
    }
    m.work_event.notify(SC_ZERO_TIME);
    m.data_event.notify(SC_ZERO_TIME);
}

void AtapiDevice::oob_reset() {
    impl_->rxq.clear();
    impl_->unit.reset();
    impl_->start_reset("comreset", false);
}

} // namespace satasim::atapi
