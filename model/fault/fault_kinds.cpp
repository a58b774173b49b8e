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
    n.phy = p.phy;
    n.comwake = p.comwake;
    return n;
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
// ---- bad_fis: the drive's firmware sends a FIS the transport layer's rules forbid.
void bad_fis_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_bad_fis(device::BadFis(param(x.fault, "fis")), uint8_t(param(x.fault, "type")), x.fault.id);
}
// ---- lpm_fail: the drive's interface power management.
void lpm_fail_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_lpm_fail(device::LpmFail(param(x.fault, "how")), unsigned(param(x.fault, "wakes")),
                                noise_of(x.fault.noise), x.fault.id);
}
// ---- cominit: COMINIT bursts (and what else the scenario names) with no negotiation after.
void cominit_arm(const Firing &x, const PortHooks &h) {
    if (h.link)
        h.link->line_noise(noise_of(x.fault.noise));
}
// ---- line_noise: the same noise with no PHY event and no OOB (a noisy cable, a marginal
// connector): the host PHY latches it in SError.
void line_noise_arm(const Firing &x, const PortHooks &h) {
    if (h.link)
        h.link->line_noise(noise_of(x.fault.noise));
}
void plug_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->replace_identity(x.fault.plug);
    if (h.link)
        h.link->set_device_present(true);
}

// ---- media_error: the drive fails matching commands (without a range of its own, a
// command-triggered fault has the range of the command that fired it: the injector's
// at_firing(), from the row's `lba`; armed from inside the observer, that very command).
void media_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_media_error(x.fault.media, x.fault.id);
}

// ---- hang / identify_fail: the drive's firmware.
void hang_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_hang(x.fault.id, x.fault.hang_comresets);
    if (h.atapi) // (a hung ATAPI firmware restarts at any reset: no comresets)
        h.atapi->inject_hang(x.fault.id);
}
// ---- check_condition: an ATAPI drive's PACKET command fails with the given sense.
void check_condition_arm(const Firing &x, const PortHooks &h) {
    if (h.atapi)
        h.atapi->inject_check_condition(
            atapi::Sense{uint8_t(param(x.fault, "key")), uint8_t(param(x.fault, "asc")), uint8_t(param(x.fault, "ascq"))},
            param(x.fault, "abrt") != 0, x.fault.id);
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
void slow_arm(const Firing &x, const PortHooks &h) {
    if (h.disk)
        h.disk->inject_slow(x.fault.slow, x.fault.id);
}

// ---- pmp_hang: the port multiplier's control port.
void pmp_hang_arm(const Firing &x, const PortHooks &h) {
    if (h.pmp_hang)
        h.pmp_hang(x.fault.id);
}

// ---- pmp_reg_abort: one PSCR read of the port multiplier's control port.
void pmp_reg_abort_arm(const Firing &x, const PortHooks &h) {
    if (h.pmp_reg_abort)
        h.pmp_reg_abort(unsigned(param(x.fault, "pscr_port")), unsigned(param(x.fault, "reg")), x.fault.id);
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

// ---- hba_error: the AHCI model's port engine fails inside (ahci_faults.cpp).
void hba_error_arm(const Firing &x, const PortHooks &h) {
    if (h.hba_error)
        h.hba_error(unsigned(param(x.fault, "error")), unsigned(param(x.fault, "irq")), x.fault.id);
}

} // namespace

Fault at_firing(const Fault &f, const device::CommandInfo *cmd) {
    Fault x = f;
    const KindSpec *spec = kind_spec(f.kind);
    if (!spec || !cmd || !cmd->sectors)
        return x;
    for (const ParamSpec &ps : spec->params)
        if (ps.type == ParamType::LbaRange && ps.from_command && !value(x, ps).given) {
            ParamValue v;
            v.n = cmd->lba;
            v.last = cmd->lba + cmd->sectors - 1;
            set_value(x, ps, v);
        }
    return x;
}

namespace {

// A typed parameter's fields in the fault.inject record.
void trace_param(const ParamSpec &ps, const ParamValue &v, TraceFields &out) {
    const std::string field = ps.trace_field ? ps.trace_field : ps.key;
    switch (ps.type) {
    case ParamType::Enum:
    case ParamType::Op: out.emplace_back(field, TraceValue::str(param_text(ps, v.n))); break;
    case ParamType::Bool: out.emplace_back(field, TraceValue::boolean(v.n != 0)); break;
    case ParamType::String: out.emplace_back(field, TraceValue::str(v.text)); break;
    case ParamType::LbaRange:
        out.emplace_back(field + "_first", TraceValue::hex(v.n));
        out.emplace_back(field + "_last", TraceValue::hex(v.last));
        break;
    case ParamType::Flags: // one boolean per flag
        for (size_t i = 0; i < ps.values.size(); ++i)
            if (i < ps.flags_shown_when_set || (v.n >> i & 1))
                out.emplace_back(ps.values[i], TraceValue::boolean(v.n >> i & 1));
        break;
    case ParamType::Uint:
    case ParamType::Time:
    case ParamType::Sectors:
        out.emplace_back(field, ps.hex ? TraceValue::hex(v.n) : TraceValue::integer(int64_t(v.n)));
        break;
    }
}

} // namespace

void trace_params(const Fault &f, TraceFields &out) {
    if (const KindSpec *spec = kind_spec(f.kind))
        for (const ParamSpec &ps : spec->params)
            if (shown(f, ps, false))
                trace_param(ps, value(f, ps), out);
}

const std::vector<BlockRow> &block_table() {
    static const std::vector<BlockRow> rows = {
        {Block::Disk, "disk", [](const PortHooks &h) {
             if (h.disk)
                 h.disk->clear_faults();
             if (h.atapi)
                 h.atapi->clear_faults();
         }},
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
            // kind, block, params (beyond the typed parameters of its spec row: none today), arm
            {Kind::Crc, B::Link, nullptr, crc_arm},
            {Kind::LostIrq, B::Hba, nullptr, lost_irq_arm},
            {Kind::Unplug, B::Link, nullptr, unplug_arm},
            // A plug readies the drive's identity (disk), then brings the cable up (link).
            {Kind::Plug, B::Link, nullptr, plug_arm},
            {Kind::MediaError, B::Disk, nullptr, media_arm},
            {Kind::Hang, B::Disk, nullptr, hang_arm},
            {Kind::IdentifyFail, B::Disk, nullptr, identify_fail_arm},
            {Kind::PhyFlap, B::Link, nullptr, flap_arm},
            {Kind::LinkDegrade, B::Link, nullptr, degrade_arm},
            {Kind::PmpHang, B::Pmp, nullptr, pmp_hang_arm},
            {Kind::Slow, B::Disk, nullptr, slow_arm},
            {Kind::SpuriousIrq, B::Hba, nullptr, spurious_irq_arm},
            {Kind::IrqStorm, B::Hba, nullptr, irq_storm_arm},
            {Kind::DrqStuck, B::Hba, nullptr, drq_stuck_arm},
            {Kind::BsyStuck, B::Hba, nullptr, bsy_stuck_arm},
            {Kind::BmdmaError, B::Hba, nullptr, bmdma_error_arm},
            {Kind::HostBusError, B::Hba, nullptr, host_bus_error_arm},
            {Kind::Cominit, B::Link, nullptr, cominit_arm},
            {Kind::PowerLoss, B::Disk, nullptr, power_loss_arm},
            {Kind::BadFis, B::Disk, nullptr, bad_fis_arm},
            {Kind::LpmFail, B::Disk, nullptr, lpm_fail_arm},
            {Kind::PmpRegAbort, B::Pmp, nullptr, pmp_reg_abort_arm},
            {Kind::CheckCondition, B::Disk, nullptr, check_condition_arm},
            {Kind::HbaError, B::Hba, nullptr, hba_error_arm},
            {Kind::LineNoise, B::Link, nullptr, line_noise_arm},
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
