#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn for the per-port EH threads
#include "backend/platform_binding.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace satasim::harness {

namespace {

// Handler calls that claim the interrupt (handled) but leave the level-triggered line high,
// back to back without simulated time passing, before the run is declared an interrupt storm
// (the driver keeps saying "mine" and never clears it: a kernel would hang there).
constexpr unsigned kIrqStormLimit = 1000;
// Calls of any result back to back at one instant before the run is declared a storm: a line
// the kernel's accounting below does not disable (handled and unhandled calls mixed).
constexpr uint64_t kIrqScreamLimit = 1000000;
// The kernel's spurious-interrupt detector (kernel/irq/spurious.c note_interrupt; facts only):
// once an unhandled interrupt was seen, every interrupt counts; at 100,000 of them, more than
// 99,900 unhandled disable the line ("nobody cared", "Disabling IRQ #n") and the spurious
// poller runs its handlers every POLL_SPURIOUS_IRQ_INTERVAL (HZ/10) from then on. An unhandled
// interrupt more than HZ/10 after the previous one starts the unhandled count again at 1.
constexpr uint64_t kIrqCountWindow = 100000;
constexpr uint64_t kIrqUnhandledLimit = 99900;
constexpr uint64_t kIrqUnhandledGapNs = 100000000ull; // HZ/10
constexpr uint64_t kIrqPollIntervalNs = 100000000ull; // POLL_SPURIOUS_IRQ_INTERVAL
// EH passes at one simulated instant before the run is declared an EH livelock.
constexpr uint64_t kEhLivelockLimit = 1000;
// How long a sleeping EH context takes to start after it is woken. libata has no sleep
// between an interrupt that freezes the port and EH's autopsy (ata_port_schedule_eh ->
// scsi_schedule_eh -> scsi_eh_wakeup wakes the host's SCSI EH kthread at once; facts from
// drivers/scsi/scsi_error.c and drivers/ata/libata-eh.c), but the kthread runs only when the
// scheduler picks it, after the interrupt handler returns: on real machines some 10s to 100s
// of us. A plug's COMINIT raises PxIS.PCS at once while the PHY's own OOB (COMWAKE, ALIGN at
// the device's speeds: 54.6 us for each speed the host cannot lock to, then PhyRdy) is still
// running, so by the time autopsy reads SError again the link has come up: kernels report a
// plug as "SErr 0x4050002 ... irq_stat 0x00000040" (RecovComm PHYRdyChg CommWake DevExch,
// PhyRdy's PxIS bit not yet set when the handler read PxIS). 200 us covers two failed speeds.
constexpr uint64_t kEhWakeLatencyNs = 200000;

PlatformBinding *B(sata_platform *p) { return p->binding; }

uint32_t op_mmio_read32(sata_platform *p, uint32_t off) { return B(p)->mmio_read32(off); }
void op_mmio_write32(sata_platform *p, uint32_t off, uint32_t val) { B(p)->mmio_write32(off, val); }
int op_dma_alloc(sata_platform *p, size_t size, size_t align, plat_dma_buf *out) {
    return B(p)->dma_alloc(size, align, out);
}
void op_dma_free(sata_platform *p, plat_dma_buf *buf) { B(p)->dma_free(buf); }
void op_dma_sync_for_device(sata_platform *p, const plat_dma_buf *buf, size_t off, size_t len) {
    B(p)->dma_sync_for_device(buf, off, len);
}
void op_dma_sync_for_cpu(sata_platform *p, const plat_dma_buf *buf, size_t off, size_t len) {
    B(p)->dma_sync_for_cpu(buf, off, len);
}
int op_request_irq(sata_platform *p, plat_irq_handler_fn fn, void *arg) {
    return B(p)->request_irq(fn, arg);
}
void op_free_irq(sata_platform *p) { B(p)->free_irq(); }
uint64_t op_now_ns(sata_platform *p) { return B(p)->now_ns(); }
void op_sleep_ns(sata_platform *p, uint64_t ns) { B(p)->sleep_ns(ns); }
plat_completion *op_completion_create(sata_platform *p) { return B(p)->completion_create(); }
void op_completion_destroy(sata_platform *p, plat_completion *c) { B(p)->completion_destroy(c); }
void op_completion_reinit(sata_platform *p, plat_completion *c) { B(p)->completion_reinit(c); }
void op_complete(sata_platform *p, plat_completion *c) { B(p)->complete(c); }
bool op_wait_for_completion_timeout(sata_platform *p, plat_completion *c, uint64_t timeout_ns) {
    return B(p)->wait_for_completion_timeout(c, timeout_ns);
}
uint64_t op_timer_arm(sata_platform *p, uint64_t delay_ns, void (*fn)(void *), void *arg) {
    return B(p)->timer_arm(delay_ns, fn, arg);
}
void op_timer_cancel(sata_platform *p, uint64_t handle) { B(p)->timer_cancel(handle); }
void op_schedule_eh(sata_platform *p) { B(p)->schedule_eh(); }
void op_schedule_port_eh(sata_platform *p, unsigned port) { B(p)->schedule_port_eh(port); }
void op_lock(sata_platform *p) { B(p)->lock(); }
void op_unlock(sata_platform *p) { B(p)->unlock(); }
void op_trace(sata_platform *p, const sata_trace_event *ev) { B(p)->trace(ev); }
uint8_t op_mmio_read8(sata_platform *p, uint32_t off) { return B(p)->mmio_read8(off); }
uint16_t op_mmio_read16(sata_platform *p, uint32_t off) { return B(p)->mmio_read16(off); }
void op_mmio_write8(sata_platform *p, uint32_t off, uint8_t val) { B(p)->mmio_write8(off, val); }
void op_mmio_write16(sata_platform *p, uint32_t off, uint16_t val) { B(p)->mmio_write16(off, val); }
void *op_dma_cpu_addr(sata_platform *p, uint64_t bus, size_t len) { return B(p)->dma_cpu_addr(bus, len); }
uint32_t op_pci_config_read(sata_platform *p, unsigned off, unsigned size) {
    return B(p)->pci_config_read(off, size);
}
void op_pci_config_write(sata_platform *p, unsigned off, unsigned size, uint32_t val) {
    B(p)->pci_config_write(off, size, val);
}
int op_msi_setup(sata_platform *p, uint64_t *address, uint32_t *data, unsigned *irq) {
    return B(p)->msi_setup(address, data, irq);
}

const sata_platform_ops kOps = {
    op_mmio_read32,
    op_mmio_write32,
    op_dma_alloc,
    op_dma_free,
    op_dma_sync_for_device,
    op_dma_sync_for_cpu,
    op_request_irq,
    op_free_irq,
    op_now_ns,
    op_sleep_ns,
    op_completion_create,
    op_completion_destroy,
    op_completion_reinit,
    op_complete,
    op_wait_for_completion_timeout,
    op_timer_arm,
    op_timer_cancel,
    op_schedule_eh,
    op_lock,
    op_unlock,
    op_trace,
    op_mmio_read8,
    op_mmio_read16,
    op_mmio_write8,
    op_mmio_write16,
    op_dma_cpu_addr,
    op_schedule_port_eh,
    op_pci_config_read,
    op_pci_config_write,
    op_msi_setup,
};

} // namespace
} // namespace satasim::harness

// A one-shot wait object: a flag (completed) and an event that wakes the waiter.
struct plat_completion {
    bool done = false;
    sc_core::sc_event ev;
    plat_completion() : ev(sc_core::sc_gen_unique_name("completion")) {}
};

namespace satasim::harness {

PlatformBinding::PlatformBinding(sc_core::sc_module_name name, bus::MmioTarget &mmio,
                                 bus::HostMemory &mem, bus::IrqLine &irq, TraceSink &sink, FailFn fail)
    : sc_core::sc_module(name), mmio_(mmio), mem_(mem), irq_(irq), sink_(sink), fail_(std::move(fail)) {
    plat_.binding = this;
    ps_per_ns_ = uint64_t(sc_core::sc_time(1, sc_core::SC_NS).value());
    if (ps_per_ns_ == 0)
        ps_per_ns_ = 1;

    SC_METHOD(irq_method);
    sensitive << irq_.changed_event() << irq_kick_;
    dont_initialize();

    SC_METHOD(irq_poll_method);
    sensitive << irq_poll_ev_;
    dont_initialize();

    SC_METHOD(timer_method);
    sensitive << timer_ev_;
    dont_initialize();
}

PlatformBinding::~PlatformBinding() = default;

const sata_platform_ops *PlatformBinding::ops() { return &kOps; }

uint64_t PlatformBinding::now_ns() const { return uint64_t(sc_core::sc_time_stamp().value()) / ps_per_ns_; }

sc_core::sc_time PlatformBinding::ns_to_time(uint64_t ns) const {
    return sc_core::sc_time::from_value(sc_dt::uint64(ns) * ps_per_ns_);
}

void PlatformBinding::fatal(const std::string &msg) {
    std::fprintf(stderr, "satasim: FATAL at t=%llu ns: %s\n", (unsigned long long)now_ns(), msg.c_str());
    sink_.emit_harness("fatal", SATA_TC_INFO, -1, {}, "FATAL: " + msg);
    sink_.flush();
    std::fflush(stderr);
    std::abort();
}

void PlatformBinding::require_process_context(const char *call) {
    if (in_irq_)
        fatal(std::string(call) + " called in interrupt context (IRQ handler or timer callback): "
                                  "interrupt context must not sleep");
    if (lock_depth_ > 0)
        fatal(std::string(call) + " called with the platform lock held (sleeping under a spinlock)");
    sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
    if (!h.valid() || (h.proc_kind() != sc_core::SC_THREAD_PROC_ && h.proc_kind() != sc_core::SC_CTHREAD_PROC_))
        fatal(std::string(call) + " called outside a process context (no SystemC thread to block)");
}

// ---- DMA ----

int PlatformBinding::dma_alloc(size_t size, size_t align, plat_dma_buf *out) {
    if (!out)
        return -EINVAL;
    out->cpu = nullptr;
    out->bus = 0;
    out->size = 0;
    if (align == 0 || (align & (align - 1)))
        return -EINVAL;
    uint8_t *cpu = nullptr;
    uint64_t bus = mem_.alloc(size, align, &cpu);
    if (bus == 0 || !cpu)
        return -ENOMEM;
    out->cpu = cpu;
    out->bus = bus;
    out->size = size;
    return 0;
}

void PlatformBinding::dma_free(plat_dma_buf *buf) {
    if (!buf || !buf->cpu)
        return;
    mem_.free(buf->bus);
    buf->cpu = nullptr;
    buf->bus = 0;
    buf->size = 0;
}

void *PlatformBinding::dma_cpu_addr(uint64_t bus, size_t len) { return mem_.map(bus, len); }

void PlatformBinding::dma_sync_for_device(const plat_dma_buf *buf, size_t off, size_t len) {
    // Without a hook the CPU pointer aliases the bus-visible region: nothing to copy.
    if (!dma_sync_ || !buf || !buf->cpu || len == 0)
        return;
    if (off > buf->size || len > buf->size - off)
        fatal("dma_sync_for_device beyond the end of a " + std::to_string(buf->size) + "-byte DMA buffer");
    dma_sync_->to_device(buf->bus + off, static_cast<const uint8_t *>(buf->cpu) + off, len);
}

void PlatformBinding::dma_sync_for_cpu(const plat_dma_buf *buf, size_t off, size_t len) {
    if (!dma_sync_ || !buf || !buf->cpu || len == 0)
        return;
    if (off > buf->size || len > buf->size - off)
        fatal("dma_sync_for_cpu beyond the end of a " + std::to_string(buf->size) + "-byte DMA buffer");
    dma_sync_->to_cpu(buf->bus + off, static_cast<uint8_t *>(buf->cpu) + off, len);
}

// ---- interrupt ----

void PlatformBinding::share_irq_line(PlatformBinding &owner) {
    irq_owner_ = &owner;
    owner.line_sharers_.push_back(this);
    irq_number_ = owner.irq_number_;
}

void PlatformBinding::trace(const sata_trace_event *ev) {
    if (port_base_ == 0 && host_name_.empty()) {
        sink_.emit_stack(*ev);
        return;
    }
    sata_trace_event e = *ev;
    std::vector<sata_trace_field> fields;
    if (e.port >= 0) {
        e.port += port_base_;
    } else { // a host's own record: which ports are its
        fields.assign(ev->fields, ev->fields + ev->n_fields);
        fields.push_back({"first_port", SATA_TF_INT, port_base_, nullptr});
        fields.push_back({"ports", SATA_TF_INT, host_ports_, nullptr});
        e.fields = fields.data();
        e.n_fields = unsigned(fields.size());
    }
    sink_.emit_stack(e, host_name_);
}

int PlatformBinding::request_irq(plat_irq_handler_fn fn, void *arg) {
    if (!fn)
        return -EINVAL;
    if (irq_fn_)
        return -EBUSY;
    PlatformBinding &line = msi_mode_ ? *this : *irq_owner_;
    irq_fn_ = fn;
    irq_arg_ = arg;
    line.irq_order_.push_back(this);
    if (line.irq_order_.size() == 1) {
        // the first handler starts the line afresh (the kernel's __setup_irq clears
        // SPURIOUS_DISABLED when it installs a line's first action)
        line.irq_stuck_ = 0;
        line.irq_screaming_ = 0;
        line.irq_count_ = line.irqs_unhandled_ = line.last_unhandled_ns_ = 0;
        line.irq_spurious_disabled_ = false;
        line.irq_poll_ev_.cancel();
    }
    line.irq_kick_.notify(sc_core::SC_ZERO_TIME); // the line may already be high
    return 0;
}

void PlatformBinding::free_irq() {
    PlatformBinding &line = msi_mode_ ? *this : *irq_owner_;
    irq_fn_ = nullptr;
    irq_arg_ = nullptr;
    line.irq_order_.erase(std::remove(line.irq_order_.begin(), line.irq_order_.end(), this), line.irq_order_.end());
    if (line.irq_order_.empty())
        line.irq_poll_ev_.cancel();
}

// The stack's pci_enable_msi: the message this host's interrupt controller decodes (the local
// APIC's window, vector 0x41 + the interrupt's number above the GSIs: a model choice) and the
// interrupt number. Not offered where the backend cannot deliver messages, nor to a controller
// on an INTx line the scenario shares: this binding is one handler slot, either on the line or
// on its vector (docs/hardware.md 12.8).
int PlatformBinding::msi_setup(uint64_t *address, uint32_t *data, unsigned *irq) {
    if (!msi_condition_ || irq_owner_ != this || !line_sharers_.empty() || irq_fn_)
        return -ENOTSUP;
    *address = kMsiAddress;
    *data = msi_data_ = 0x4000u | ((0x41u + msi_irq_ - 24u) & 0xffu); // edge, fixed delivery
    *irq = msi_irq_;
    msi_mode_ = true;
    irq_number_ = int(msi_irq_);
    return 0;
}

// A memory write the function sent to the message window: its vector's handlers run.
void PlatformBinding::msi_message(uint64_t address, uint32_t data) {
    if (!msi_mode_ || address != kMsiAddress || data != msi_data_)
        return; // not this host's vector (the model sends only what was programmed)
    irq_kick_.notify(sc_core::SC_ZERO_TIME);
}

// Level-triggered and wired-OR: the line is high while any controller on it drives it.
bool PlatformBinding::line_level() const {
    if (msi_mode_) // messages: the function's condition decides whether it signals again
        return msi_condition_();
    if (irq_.level())
        return true;
    for (const PlatformBinding *b : line_sharers_)
        if (b->irq_.level())
            return true;
    return false;
}

bool PlatformBinding::run_line_handlers() {
    bool handled = false;
    // a copy: a handler may not free its line, but the order must not shift under the loop
    const std::vector<PlatformBinding *> order = irq_order_;
    for (PlatformBinding *b : order) {
        if (!b->irq_fn_)
            continue;
        b->in_irq_ = true;
        ++b->irq_calls_;
        handled = (b->irq_fn_(b->irq_arg_) != 0) || handled;
        b->in_irq_ = false;
    }
    return handled;
}

// The kernel's note_interrupt after a hardware interrupt's handlers ran (not after a poll).
void PlatformBinding::note_interrupt(bool handled) {
    const uint64_t now = now_ns();
    if (!handled) {
        if (irqs_unhandled_ && now > last_unhandled_ns_ + kIrqUnhandledGapNs)
            irqs_unhandled_ = 1;
        else
            ++irqs_unhandled_;
        last_unhandled_ns_ = now;
    }
    if (!irqs_unhandled_)
        return;
    if (++irq_count_ < kIrqCountWindow)
        return;
    irq_count_ = 0;
    if (irqs_unhandled_ > kIrqUnhandledLimit) {
        const std::string irq = std::to_string(irq_number_);
        sink_.emit_kernel("irq.nobody_cared", "err",
                          {{"irq", TraceValue::integer(irq_number_)},
                           {"unhandled", TraceValue::integer(int64_t(irqs_unhandled_))},
                           {"of", TraceValue::integer(int64_t(kIrqCountWindow))}},
                          "irq " + irq + ": nobody cared (try booting with the \"irqpoll\" option)");
        sink_.emit_kernel("irq.disabled", "err",
                          {{"irq", TraceValue::integer(irq_number_)},
                           {"poll_ms", TraceValue::integer(int64_t(kIrqPollIntervalNs / 1000000))}},
                          "Disabling IRQ #" + irq);
        irq_spurious_disabled_ = true;
        irq_poll_ev_.notify(ns_to_time(kIrqPollIntervalNs));
    }
    irqs_unhandled_ = 0;
}

void PlatformBinding::irq_method() {
    if (irq_owner_ != this && !msi_mode_) { // a shared line: its owner runs the handlers
        irq_owner_->irq_kick_.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    if (irq_storm_ || irq_spurious_disabled_)
        return;
    if (!line_level()) {
        irq_stuck_ = 0;
        irq_screaming_ = 0;
        return;
    }
    if (irq_order_.empty())
        return; // no handler: the line stays asserted, nobody listens
    const bool handled = run_line_handlers();
    note_interrupt(handled);
    if (irq_spurious_disabled_)
        return;
    if (line_level() && !irq_order_.empty()) {
        // Level-triggered: still asserted, so the CPU takes the interrupt again.
        irq_stuck_ = handled ? irq_stuck_ + 1 : 0;
        if (irq_stuck_ >= kIrqStormLimit || ++irq_screaming_ >= kIrqScreamLimit) {
            const uint64_t n = irq_stuck_ >= kIrqStormLimit ? irq_stuck_ : irq_screaming_;
            irq_storm_ = true;
            sink_.emit_harness("irq.storm", SATA_TC_INFO, -1,
                               {{"calls", TraceValue::integer(int64_t(n))}},
                               "irq storm: interrupt line still asserted after " +
                                   std::to_string(n) + " handler calls");
            fail_("irq storm: interrupt line still asserted after " + std::to_string(n) +
                  " consecutive handler calls");
            return;
        }
        irq_kick_.notify(sc_core::SC_ZERO_TIME);
    } else {
        irq_stuck_ = 0;
        irq_screaming_ = 0;
    }
}

// The spurious poller (poll_spurious_irqs -> try_one_irq(desc, force)): a disabled line's
// handlers run every HZ/10 whatever the line's level, and note_interrupt does not see them.
void PlatformBinding::irq_poll_method() {
    if (!irq_spurious_disabled_ || irq_order_.empty())
        return;
    run_line_handlers();
    irq_poll_ev_.notify(ns_to_time(kIrqPollIntervalNs));
}

// ---- time ----

void PlatformBinding::sleep_ns(uint64_t ns) {
    require_process_context("sleep_ns");
    if (ns == 0) {
        sc_core::wait(sc_core::SC_ZERO_TIME);
        return;
    }
    sc_core::wait(ns_to_time(ns));
    eh_tie_break();
}

// ---- completions ----

plat_completion *PlatformBinding::completion_create() { return new plat_completion(); }

void PlatformBinding::completion_destroy(plat_completion *c) { delete c; }

void PlatformBinding::completion_reinit(plat_completion *c) {
    c->done = false;
    c->ev.cancel();
}

void PlatformBinding::complete(plat_completion *c) {
    c->done = true;
    c->ev.notify(sc_core::SC_ZERO_TIME);
}

bool PlatformBinding::wait_for_completion_timeout(plat_completion *c, uint64_t timeout_ns) {
    if (c->done || timeout_ns == 0)
        return c->done;
    require_process_context("wait_for_completion_timeout");
    if (timeout_ns == UINT64_MAX) {
        while (!c->done)
            sc_core::wait(c->ev);
        eh_tie_break();
        return true;
    }
    uint64_t now = uint64_t(sc_core::sc_time_stamp().value());
    uint64_t deadline = now + timeout_ns * ps_per_ns_;
    if (deadline < now)
        deadline = UINT64_MAX;
    while (!c->done) {
        now = uint64_t(sc_core::sc_time_stamp().value());
        if (now >= deadline)
            break;
        sc_core::wait(sc_core::sc_time::from_value(deadline - now), c->ev);
    }
    eh_tie_break();
    return c->done;
}

// ---- timers ----

uint64_t PlatformBinding::timer_arm(uint64_t delay_ns, void (*fn)(void *), void *arg) {
    uint64_t now = uint64_t(sc_core::sc_time_stamp().value());
    uint64_t delay = delay_ns > (UINT64_MAX - now) / ps_per_ns_ ? UINT64_MAX - now : delay_ns * ps_per_ns_;
    uint64_t handle = next_timer_++;
    timers_[handle] = Timer{now + delay, fn, arg};
    timer_queue_.insert({now + delay, handle});
    // An earlier pending notification wins; a later one is replaced by this.
    timer_ev_.notify(sc_core::sc_time::from_value(delay));
    return handle;
}

void PlatformBinding::timer_cancel(uint64_t handle) {
    auto it = timers_.find(handle);
    if (it == timers_.end())
        return;
    timer_queue_.erase({it->second.deadline_ps, handle});
    timers_.erase(it);
    // A notification pending for it may still fire; timer_method then finds nothing due.
}

void PlatformBinding::timer_method() {
    uint64_t now = uint64_t(sc_core::sc_time_stamp().value());
    while (!timer_queue_.empty() && timer_queue_.begin()->first <= now) {
        uint64_t handle = timer_queue_.begin()->second;
        timer_queue_.erase(timer_queue_.begin());
        auto it = timers_.find(handle);
        Timer t = it->second;
        timers_.erase(it);
        ++timers_fired_;
        bool was = in_irq_;
        in_irq_ = true; // timer callbacks run in interrupt context
        t.fn(t.arg);
        in_irq_ = was;
    }
    if (!timer_queue_.empty())
        timer_ev_.notify(sc_core::sc_time::from_value(timer_queue_.begin()->first - now));
}

// ---- EH ----

void PlatformBinding::set_host(ata_host *h) {
    host_ = h;
    if (!h)
        return;
    for (unsigned port = unsigned(eh_.size()); port < ata_host_n_ports(h); ++port) {
        eh_.push_back(std::make_unique<PortEh>());
        sc_core::sc_spawn_options opts;
        opts.set_stack_size(4 << 20);
        eh_.back()->thread = sc_core::sc_spawn([this, port] { eh_thread(port); },
                                               sc_core::sc_gen_unique_name(("eh" + std::to_string(port)).c_str()),
                                               &opts);
    }
}

// Port p's EH context resumes p delta cycles after whatever woke it, so EH contexts waking at
// one simulated instant (two links up after the same reset time) run in port order; the
// kernel's order among SystemC's same-time events is arbitrary. Port 0 never waits here.
void PlatformBinding::eh_tie_break() {
    sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
    for (unsigned port = 1; port < eh_.size(); ++port)
        if (eh_[port]->thread == self) {
            for (unsigned i = 0; i < port; ++i)
                sc_core::wait(sc_core::SC_ZERO_TIME);
            return;
        }
}

bool PlatformBinding::eh_busy() const {
    for (const auto &e : eh_)
        if (e->pending || e->running)
            return true;
    return false;
}

// A backend-wide wake (the stack uses it only without schedule_port_eh): every port's pass.
void PlatformBinding::schedule_eh() {
    for (unsigned port = 0; port < eh_.size(); ++port)
        schedule_port_eh(port);
}

void PlatformBinding::schedule_port_eh(unsigned port) {
    if (port >= eh_.size())
        fatal("schedule_port_eh(" + std::to_string(port) + "): the host has " + std::to_string(eh_.size()) +
              " ports");
    PortEh &e = *eh_[port];
    if (e.pending)
        return;
    e.pending = true;
    // a running EH context sees pending when its pass ends and repeats at once (libata's
    // "goto repeat" while ATA_PFLAG_EH_PENDING); a sleeping one wakes after the latency
    if (!e.running)
        e.ev.notify(ns_to_time(kEhWakeLatencyNs));
}

void PlatformBinding::eh_thread(unsigned port) {
    PortEh &e = *eh_[port];
    for (;;) {
        while (!e.pending)
            sc_core::wait(e.ev);
        e.pending = false;
        if (!host_)
            continue;
        uint64_t now = uint64_t(sc_core::sc_time_stamp().value());
        if (now == e.last_time_ps) {
            if (++e.same_time_runs >= kEhLivelockLimit) {
                std::string msg = "EH livelock: " + std::to_string(e.same_time_runs) + " EH passes of port " +
                                  std::to_string(port) + " without simulated time passing";
                sink_.emit_harness("eh.livelock", SATA_TC_INFO, int(port), {}, msg);
                fail_(msg);
                return;
            }
        } else {
            e.last_time_ps = now;
            e.same_time_runs = 0;
        }
        ++eh_runs_;
        e.running = true;
        ata_port_eh_run(host_, port);
        e.running = false;
        if (!eh_busy())
            eh_idle_ev_.notify(sc_core::SC_ZERO_TIME);
    }
}

// ---- locks ----

void PlatformBinding::lock() { ++lock_depth_; }

void PlatformBinding::unlock() {
    if (lock_depth_ <= 0)
        fatal("platform unlock() without a matching lock()");
    --lock_depth_;
}

} // namespace satasim::harness
