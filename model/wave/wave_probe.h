// Waveform probes: how models report signal changes (link primitives, FIS boundaries, the
// interrupt line, port registers, PhyRdy) to a waveform writer (the harness's VCD writer).
//
// A model owns Signal handles. Without a sink (the default) a Signal is detached and
// set() costs one pointer test; a model calls attach() once, after elaboration of its own
// structure, when the harness switches waveforms on. The sink decides which signals it
// records (by group and port): a signal it does not want stays detached.
//
// Times are absolute simulated times in SystemC time-resolution units (sc_time::value()).
// A model may report a change at a time ahead of the current simulated time (the dword
// link ticks a whole frame burst before it lets SystemC time pass), never behind it. What
// it reported ahead it may take back when the burst is cut short (the PHY went down
// mid-frame): those dwords never went out.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <systemc>

namespace satasim::wave {

using SignalId = uint32_t;
constexpr SignalId kNoSignal = ~SignalId(0);

// Signal groups (the scenario key `waveform.signals` selects by these names).
enum class Group : uint8_t {
    Irq,   // the controller's interrupt line
    Phy,   // PhyRdy and the negotiated generation of each link
    Prims, // the primitive each side of a link sends (dword-level links only)
    Fis,   // FIS boundaries: frame (SOF..EOF) and the FIS type of each direction
    Regs,  // AHCI PxIS/PxCI/PxSACT, SiI3124 PORT_SLOT_STAT/PORT_IRQ_STAT per port
};
constexpr unsigned kGroups = 5;
inline const char *group_name(Group g) {
    switch (g) {
    case Group::Irq: return "irq";
    case Group::Phy: return "phy";
    case Group::Prims: return "prims";
    case Group::Fis: return "fis";
    case Group::Regs: return "regs";
    }
    return "?";
}

struct SignalDecl {
    std::string scope; // dotted module path, e.g. "ahci0.port0", "link1.h2d"
    std::string name;  // e.g. "PxCI", "prim"
    unsigned width = 1;
    Group group = Group::Irq;
    int port = -1;     // host port the signal belongs to, -1 for controller-wide ones
    uint64_t init = 0; // value at time 0
};

class Sink {
  public:
    virtual ~Sink() = default;
    // kNoSignal if the signal is not selected.
    virtual SignalId declare(const SignalDecl &d) = 0;
    // Value change of a declared signal at absolute time t (time-resolution units).
    virtual void change(SignalId id, uint64_t t, uint64_t value) = 0;
    // Withdraws the changes of a signal reported for times after t (t is not behind the
    // current simulated time).
    virtual void retract_after(SignalId id, uint64_t t) = 0;
};

inline uint64_t now() { return uint64_t(sc_core::sc_time_stamp().value()); }

// One model signal. Repeated values are not reported.
class Signal {
  public:
    void attach(Sink *sink, const SignalDecl &d) {
        id_ = sink ? sink->declare(d) : kNoSignal;
        sink_ = id_ == kNoSignal ? nullptr : sink;
        last_ = d.init;
    }
    bool on() const { return sink_ != nullptr; }
    void set(uint64_t v) {
        if (sink_)
            set_at(now(), v);
    }
    void set_at(uint64_t t, uint64_t v) {
        if (sink_ && v != last_) {
            last_ = v;
            sink_->change(id_, t, v);
        }
    }

    // The signal holds v from t on: what was reported for after t is taken back.
    void cut_at(uint64_t t, uint64_t v) {
        if (!sink_)
            return;
        sink_->retract_after(id_, t);
        last_ = v;
        sink_->change(id_, t, v);
    }

  private:
    Sink *sink_ = nullptr;
    SignalId id_ = kNoSignal;
    uint64_t last_ = 0;
};

// The per-port registers of a host controller (group Regs): for each port a scope
// "<hba>.port<i>" with one 32-bit signal per register name, set in the order of the names.
class PortRegisters {
  public:
    void attach(Sink *sink, const std::string &hba, unsigned n_ports, std::vector<std::string> names) {
        ports_.assign(n_ports, std::vector<Signal>(names.size()));
        for (unsigned i = 0; i < n_ports; ++i)
            for (size_t k = 0; k < names.size(); ++k)
                ports_[i][k].attach(sink, {hba + ".port" + std::to_string(i), names[k], 32, Group::Regs, int(i), 0});
    }
    void set(unsigned port, std::initializer_list<uint64_t> values) {
        if (port >= ports_.size())
            return;
        size_t k = 0;
        for (uint64_t v : values)
            ports_[port][k++].set(v);
    }

  private:
    std::vector<std::vector<Signal>> ports_;
};

// Link primitive codes of the `prim` signals (8 bits): the link RTL's primitive number
// (model/link/rtl/sata_link.v, P_*) plus one, so that 0 means "nothing sent" (PHY not
// ready). model/wave/gtkwave_prims.txt is a GTKWave translate-filter file with the names.
namespace prim_code {
constexpr uint8_t kNone = 0x00, kData = 0x01, kAlign = 0x02, kCont = 0x03, kSync = 0x04,
                  kXRdy = 0x05, kRRdy = 0x06, kSof = 0x07, kEof = 0x08, kRIp = 0x09,
                  kROk = 0x0a, kRErr = 0x0b, kHold = 0x0c, kHolda = 0x0d, kWtrm = 0x0e,
                  kDmat = 0x0f, kBad = 0x10;
inline const char *name(unsigned c) {
    static const char *const names[] = {"none", "DATA",  "ALIGN", "CONT", "SYNC", "X_RDY",
                                        "R_RDY", "SOF",  "EOF",   "R_IP", "R_OK", "R_ERR",
                                        "HOLD", "HOLDA", "WTRM",  "DMAT", "BAD"};
    return c <= kBad ? names[c] : "?";
}
} // namespace prim_code

} // namespace satasim::wave
