#include "model/fault/fault_kinds.h"

#include <systemc>

namespace satasim::fault {

namespace {

sc_core::sc_time ns(uint64_t v) {
    return sc_core::sc_time::from_value(sc_dt::uint64(v) *
                                        sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
}

// ---- crc: corrupt `burst` matching FISes on the disk's link (its parameters: its spec row).
void crc_arm(const Firing &x, const PortHooks &h) {
    if (!h.link)
        return;
    const CrcParams &c = x.fault.crc;
    for (unsigned k = 1; k <= c.burst; ++k) {
        link::SataLink::DwordFault d;
        d.from_host = c.from_host;
        d.type = c.fis.value_or(sata::FisType::Data);
        d.nth = k; // armed faults count independently: k-th matching FIS
        d.dword = c.dword;
        d.xor_mask = c.xor_mask;
        d.symbol = c.symbol;
        h.link->inject_dword_fault(d);
    }
}

// ---- lost_irq: the controller swallows completion interrupts.
void lost_irq_arm(const Firing &x, const PortHooks &h) {
    if (h.lost_irq)
        h.lost_irq(x.fault.lost_irq.count, x.fault.lost_irq.window_ns, x.fault.id);
}

// ---- unplug / plug: the cable (PhyRdy), and for a plug the drive that comes in.
link::LinkEndpoint::Noise noise_of(const NoiseParams &p) {
    link::LinkEndpoint::Noise n;
    n.cominit = p.cominit;
    n.decode = p.decode;
    n.internal = p.internal;
    return n;
}
void noise_params(const Firing &x, TraceFields &out) {
    const NoiseParams &p = x.fault.noise;
    if (!p.cominit && !p.decode && !p.internal)
        return; // (an unplug or a flap without noise traces as before)
    out.emplace_back("cominit", TraceValue::boolean(p.cominit));
    out.emplace_back("decode", TraceValue::boolean(p.decode));
    out.emplace_back("internal", TraceValue::boolean(p.internal));
}
void unplug_arm(const Firing &x, const PortHooks &h) {
    if (h.disk) // the cable takes the drive's power with it: its write cache is lost
        h.disk->lose_cache(x.fault.id);
    if (h.link)
        h.link->set_device_present(false, noise_of(x.fault.noise));
}
// ---- power_loss: the drive's supply drops for `off`: the cache is lost and the drive
// restarts; the link sees PhyRdy go and come back (COMINIT) as after a PHY glitch.
void power_loss_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->power_loss(x.fault.id);
    if (h.link)
        h.link->phy_glitch(ns(param(x.fault, "off")));
}
// ---- cominit: COMINIT bursts (and what else the scenario names) with no negotiation after.
void cominit_arm(const Firing &x, const PortHooks &h) {
    if (h.link)
        h.link->line_noise(noise_of(x.fault.noise));
}
void plug_params(const Firing &x, TraceFields &out) {
    const PlugParams &p = x.fault.plug;
    if (p.model)
        out.emplace_back("model", TraceValue::str(*p.model));
    if (p.serial)
        out.emplace_back("serial", TraceValue::str(*p.serial));
    if (p.capacity)
        out.emplace_back("capacity", TraceValue::integer(int64_t(*p.capacity)));
    out.emplace_back("blank_media", TraceValue::boolean(p.blank_media));
}
void plug_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->replace_identity(x.fault.plug);
    if (h.link)
        h.link->set_device_present(true);
}

// ---- the drive's command filters (media_error, slow). Without a range of its own, a
// command-triggered fault hits the range of the command that fired it (armed from inside
// the observer: that very command).
CommandMatch match_of(const Firing &x, CommandMatch m) {
    if (x.cmd && !m.lba_first && !m.lba_last && x.cmd->sectors) {
        m.lba_first = x.cmd->lba;
        m.lba_last = x.cmd->lba + x.cmd->sectors - 1;
    }
    return m;
}
void match_params(const CommandMatch &m, TraceFields &out) {
    out.emplace_back("op", TraceValue::str(to_string(m.op)));
    if (m.lba_first)
        out.emplace_back("lba_first", TraceValue::hex(*m.lba_first));
    if (m.lba_last)
        out.emplace_back("lba_last", TraceValue::hex(*m.lba_last));
}

// ---- media_error: the drive fails matching commands.
MediaParams media_of(const Firing &x) {
    MediaParams m = x.fault.media;
    m.match = match_of(x, m.match);
    return m;
}
void media_params(const Firing &x, TraceFields &out) {
    const MediaParams m = media_of(x);
    out.emplace_back("error", TraceValue::str(to_string(m.error)));
    match_params(m.match, out);
    out.emplace_back("count", TraceValue::integer(m.count));
}
void media_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_media_error(media_of(x), x.fault.id);
}

// ---- hang / identify_fail: the drive's firmware.
void hang_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_hang(x.fault.id, x.fault.hang_comresets);
}
void identify_fail_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_identify_failures(x.fault.identify_failures, x.fault.id);
}

// ---- phy_flap / link_degrade: the PHY of the disk's link.
void flap_arm(const Firing &x, const PortHooks &h) {
    if (h.link) {
        h.link->line_noise(noise_of(x.fault.noise)); // with the PhyRdy loss, as an unplug's
        h.link->phy_glitch(ns(x.fault.flap.down_ns));
    }
}
void degrade_arm(const Firing &x, const PortHooks &h) {
    if (h.link)
        h.link->limit_device_gen(static_cast<link::Gen>(x.fault.gen));
}

// ---- slow: the drive answers matching commands late.
SlowParams slow_of(const Firing &x) {
    SlowParams s = x.fault.slow;
    s.match = match_of(x, s.match);
    return s;
}
void slow_params(const Firing &x, TraceFields &out) {
    const SlowParams s = slow_of(x);
    out.emplace_back("delay_ns", TraceValue::integer(int64_t(s.delay_ns)));
    match_params(s.match, out);
    out.emplace_back("count", TraceValue::integer(s.count));
    out.emplace_back("window_ns", TraceValue::integer(int64_t(s.window_ns)));
}
void slow_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_slow(slow_of(x), x.fault.id);
}

// ---- pmp_hang: the port multiplier's control port.
void pmp_hang_arm(const Firing &x, const PortHooks &h) {
    if (h.pmp_hang)
        h.pmp_hang(x.fault.id);
}

// ---- the taskfile channel's faults (sff_channel.h hooks); the controller's clear_faults()
// and a reset of the channel disarm them.
void spurious_irq_arm(const Firing &, const PortHooks &h) {
    if (h.channel)
        h.channel->spurious_irq();
}
void irq_storm_arm(const Firing &, const PortHooks &h) {
    if (h.channel)
        h.channel->stick_line(true);
}
void drq_stuck_arm(const Firing &, const PortHooks &h) {
    if (h.channel)
        h.channel->stick_drq(true);
}
void bsy_stuck_arm(const Firing &x, const PortHooks &h) {
    if (h.channel)
        h.channel->stick_bsy(true, param(x.fault, "until") == 1); // until: comreset (an SRST leaves it)
}
void bmdma_error_arm(const Firing &x, const PortHooks &h) {
    if (h.channel)
        h.channel->bmdma().inject_error(bmdma::BmDma::Dir(param(x.fault, "dir")));
}

// ---- host_bus_error: the AHCI controller's host bus (the SystemC model's DMA, the RTL
// shell's AXI slave) answers the port's next matching access with an error.
void host_bus_error_arm(const Firing &x, const PortHooks &h) {
    if (h.host_bus_error)
        h.host_bus_error(x.fault.bus, x.fault.id);
}

} // namespace

const std::vector<BlockRow> &block_table() {
    static const std::vector<BlockRow> rows = {
        {Block::Disk, "disk", [](const PortHooks &h) { if (h.disk) h.disk->clear_faults(); }},
        {Block::Link, "link", [](const PortHooks &h) { if (h.link) h.link->clear_faults(); }},
        {Block::Hba, "hba", [](const PortHooks &h) { if (h.clear_hba) h.clear_hba(); }},
        {Block::Pmp, "pmp", [](const PortHooks &h) { if (h.clear_pmp) h.clear_pmp(); }},
    };
    return rows;
}

const std::vector<KindRow> &kind_table() {
    using B = Block;
    static const std::vector<KindRow> rows = [] {
        std::vector<KindRow> r = {
            // kind, block, params (beyond the typed parameters of its spec row), arm
            {Kind::Crc, B::Link, nullptr, crc_arm},
            {Kind::LostIrq, B::Hba, nullptr, lost_irq_arm},
            {Kind::Unplug, B::Link, noise_params, unplug_arm},
            // A plug readies the drive's identity (disk), then brings the cable up (link).
            {Kind::Plug, B::Link, plug_params, plug_arm},
            {Kind::MediaError, B::Disk, media_params, media_arm},
            {Kind::Hang, B::Disk, nullptr, hang_arm},
            {Kind::IdentifyFail, B::Disk, nullptr, identify_fail_arm},
            {Kind::PhyFlap, B::Link, noise_params, flap_arm},
            {Kind::LinkDegrade, B::Link, nullptr, degrade_arm},
            {Kind::PmpHang, B::Pmp, nullptr, pmp_hang_arm},
            {Kind::Slow, B::Disk, slow_params, slow_arm},
            {Kind::SpuriousIrq, B::Hba, nullptr, spurious_irq_arm},
            {Kind::IrqStorm, B::Hba, nullptr, irq_storm_arm},
            {Kind::DrqStuck, B::Hba, nullptr, drq_stuck_arm},
            {Kind::BsyStuck, B::Hba, nullptr, bsy_stuck_arm},
            {Kind::BmdmaError, B::Hba, nullptr, bmdma_error_arm},
            {Kind::HostBusError, B::Hba, nullptr, host_bus_error_arm},
            {Kind::Cominit, B::Link, noise_params, cominit_arm},
            {Kind::PowerLoss, B::Disk, nullptr, power_loss_arm},
        };
        for (KindRow &k : r)
            k.spec = kind_spec(k.kind);
        return r;
    }();
    return rows;
}

const KindRow *kind_row(Kind k) {
    for (const KindRow &r : kind_table())
        if (r.kind == k)
            return &r;
    return nullptr;
}

} // namespace satasim::fault
