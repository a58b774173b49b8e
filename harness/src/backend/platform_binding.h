// The stack's platform (stack/include/satasim/platform.h) implemented on SystemC and the
// models: MMIO straight into the controller's register block, DMA memory from the host
// memory model, the controller's interrupt line delivered by an SC_METHOD (interrupt
// context), completions and timers as SystemC events, and one EH context per port (as
// libata's per-port SCSI EH thread) running ata_port_eh_run() whenever the stack asks.
//
// Context rules are enforced: a blocking call (sleep, waiting for a completion) from
// interrupt context, from a timer callback or from outside a SystemC thread aborts the
// run with a message naming the call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/bus/pci_function.h"
#include "satasim/ata.h"
#include "satasim/platform.h"
#include "trace/trace_sink.h"

namespace satasim::harness {
class PlatformBinding;

// Where device memory is not the CPU's (the QEMU backend: guest RAM), dma_sync_for_device
// and dma_sync_for_cpu copy through this hook; without one they do nothing.
class DmaSyncHook {
  public:
    virtual ~DmaSyncHook() = default;
    virtual void to_device(uint64_t bus, const void *cpu, size_t len) = 0;
    virtual void to_cpu(uint64_t bus, void *cpu, size_t len) = 0;
};
}

// The backend's context, opaque to the stack.
struct sata_platform {
    satasim::harness::PlatformBinding *binding;
};

namespace satasim::harness {

class PlatformBinding : public sc_core::sc_module {
  public:
    using FailFn = std::function<void(const std::string &reason)>;

    SC_HAS_PROCESS(PlatformBinding);
    PlatformBinding(sc_core::sc_module_name name, bus::MmioTarget &mmio, bus::HostMemory &mem,
                    bus::IrqLine &irq, TraceSink &sink, FailFn fail);
    ~PlatformBinding() override;

    static const sata_platform_ops *ops();
    sata_platform *platform() { return &plat_; }

    // The host whose ports' EH run in this binding's EH threads (one per port, started here
    // in port order, so EH contexts that wake at one instant run by port number).
    void set_host(ata_host *h);
    ata_host *host() const { return host_; }

    // The controller's quirks as the board's driver data gives them to its LLD
    // (ata_host_config.quirks, ATA_HQ_*, and .only_gen): set by a backend whose hardware
    // declares them (the RTL backend, from the DUT profile); the run copies them into the
    // host config. None by default.
    struct HostQuirks {
        uint32_t flags = 0;
        unsigned only_gen = 0;
        ata_onchip_area onchip{}; // with ATA_HQ_ONCHIP_CMD_AREA
    };
    void set_host_quirks(const HostQuirks &q) { quirks_ = q; }
    const HostQuirks &host_quirks() const { return quirks_; }

    // Several controllers in one host (Scenario::controllers): this host's ports are
    // host-wide from first_port on in the trace and the log (libata numbers ata ports across
    // hosts), and its own log lines without a port read "<host_name>: ..." (the driver and
    // PCI address). Not called with one controller: the sink's defaults apply.
    // Its records without a port say which ports are the host's (fields first_port, ports:
    // the EH-rule monitor judges each host's resets by its own driver).
    void set_host_address(unsigned first_port, unsigned ports, const std::string &host_name) {
        port_base_ = int(first_port);
        host_ports_ = int(ports);
        host_name_ = host_name;
    }
    // The interrupt line (GSI) the log names ("irq 19: nobody cared").
    void set_irq_number(unsigned irq) { irq_number_ = int(irq); }
    // A shared INTx line: this controller's pin is wired to the line `owner` serves. The
    // owner runs every handler registered on the line, in the order they were registered
    // (the kernel's shared-IRQ action list); the line is "handled" if any claims it, and
    // the kernel's spurious accounting ("nobody cared") is the owner's, once per line.
    void share_irq_line(PlatformBinding &owner);

    // The controller's PCI function: the stack's configuration cycles go to it (nullptr: none,
    // reads return all ones and the stack's PCI probe refuses).
    void set_pci(bus::PciConfigPort *cfg) { pci_ = cfg; }
    bool has_pci() const { return pci_ != nullptr; }
    // MSI delivery (a backend whose function can send messages to this host): the stack's
    // msi_setup gets the message below and interrupt number `irq`; from then on the handlers run
    // on each message the function writes (msi_message), as an edge, and again while
    // `condition` (the function's interrupt condition) is still asserted after they ran: the
    // function sends another message for events its status writes left pending (docs/hardware.md
    // 12.8). The line sharing of share_irq_line does not apply to messages. Without this call
    // msi_setup answers -ENOTSUP and the stack keeps INTx.
    static constexpr uint64_t kMsiAddress = 0xfee00000ull; // the local APIC's message window
    void enable_msi_delivery(std::function<bool()> condition, unsigned irq) {
        msi_condition_ = std::move(condition);
        msi_irq_ = irq;
    }
    int msi_setup(uint64_t *address, uint32_t *data, unsigned *irq);
    void msi_message(uint64_t address, uint32_t data);
    bool msi_mode() const { return msi_mode_; }
    uint32_t pci_config_read(unsigned off, unsigned size) {
        return pci_ ? pci_->pci_config_read(off, size) : 0xffffffffu >> (32 - 8 * (size & 7 ? size & 7 : 4));
    }
    void pci_config_write(unsigned off, unsigned size, uint32_t val) {
        if (pci_)
            pci_->pci_config_write(off, size, val);
    }

    // The backend's DMA copy hook (nullptr: CPU and device share the memory).
    void set_dma_sync(DmaSyncHook *h) { dma_sync_ = h; }
    // Ownership hand-over of [off, off+len) of buf, as the stack's ops: the workloads call
    // these around every I/O on their data buffers (no-ops on the simulator).
    void dma_sync_for_device(const plat_dma_buf *buf, size_t off, size_t len);
    void dma_sync_for_cpu(const plat_dma_buf *buf, size_t off, size_t len);

    // The CPU pointer of bus memory the allocator handed out (the stack's PIO data path).
    void *dma_cpu_addr(uint64_t bus, size_t len);

    // For the harness's own buffers (same allocator as the stack's).
    int dma_alloc(size_t size, size_t align, plat_dma_buf *out);
    void dma_free(plat_dma_buf *buf);

    uint64_t now_ns() const;
    bool in_irq() const { return in_irq_; }

    // Statistics for result.json.
    uint64_t irq_calls() const { return irq_calls_; }
    uint64_t eh_runs() const { return eh_runs_; }
    uint64_t timers_fired() const { return timers_fired_; }
    // EH requested and not yet run, or running now (suspended in a sleep or wait), on any port.
    bool eh_busy() const;
    const sc_core::sc_event &eh_idle_event() const { return eh_idle_ev_; }

    // Abort the process: message to stderr (and the trace), flush, abort().
    [[noreturn]] void fatal(const std::string &msg);
    // Enforce process context for blocking calls.
    void require_process_context(const char *call);

    // ---- op implementations (called through the C table) ----
    uint32_t mmio_read32(uint32_t off) { return mmio_.mmio_read32(off); }
    void mmio_write32(uint32_t off, uint32_t val) { mmio_.mmio_write32(off, val); }
    uint8_t mmio_read8(uint32_t off) { return mmio_.mmio_read8(off); }
    uint16_t mmio_read16(uint32_t off) { return mmio_.mmio_read16(off); }
    void mmio_write8(uint32_t off, uint8_t val) { mmio_.mmio_write8(off, val); }
    void mmio_write16(uint32_t off, uint16_t val) { mmio_.mmio_write16(off, val); }
    int request_irq(plat_irq_handler_fn fn, void *arg);
    void free_irq();
    void sleep_ns(uint64_t ns);
    plat_completion *completion_create();
    void completion_destroy(plat_completion *c);
    void completion_reinit(plat_completion *c);
    void complete(plat_completion *c);
    bool wait_for_completion_timeout(plat_completion *c, uint64_t timeout_ns);
    uint64_t timer_arm(uint64_t delay_ns, void (*fn)(void *), void *arg);
    void timer_cancel(uint64_t handle);
    void schedule_eh();
    void schedule_port_eh(unsigned port);
    void lock();
    void unlock();
    void trace(const sata_trace_event *ev);

  private:
    bool line_level() const;
    // The handlers on this binding's line (it owns the line): true if one claimed it.
    bool run_line_handlers();
    void irq_method();
    void irq_poll_method();
    void note_interrupt(bool handled);
    void timer_method();
    void eh_thread(unsigned port);
    void eh_tie_break();
    sc_core::sc_time ns_to_time(uint64_t ns) const;

    bus::MmioTarget &mmio_;
    bus::HostMemory &mem_;
    bus::IrqLine &irq_;
    TraceSink &sink_;
    FailFn fail_;
    sata_platform plat_;
    ata_host *host_ = nullptr;

    // interrupt
    int irq_number_ = 19;
    PlatformBinding *irq_owner_ = this;            // the binding serving this one's line
    std::vector<PlatformBinding *> line_sharers_; // the other bindings on the line this one owns
    std::vector<PlatformBinding *> irq_order_;    // handlers on the line, in registration order
    int port_base_ = 0;
    int host_ports_ = 0;
    std::string host_name_;
    plat_irq_handler_fn irq_fn_ = nullptr;
    void *irq_arg_ = nullptr;
    bool in_irq_ = false;
    unsigned irq_stuck_ = 0;    // consecutive handled calls that left the line high
    uint64_t irq_screaming_ = 0; // consecutive calls of any result that left it high
    bool irq_storm_ = false;
    uint64_t irq_calls_ = 0;
    sc_core::sc_event irq_kick_;
    // the kernel's spurious-interrupt accounting (kernel/irq/spurious.c note_interrupt)
    uint64_t irq_count_ = 0, irqs_unhandled_ = 0, last_unhandled_ns_ = 0;
    bool irq_spurious_disabled_ = false; // "Disabling IRQ #n": only the poller calls it now
    sc_core::sc_event irq_poll_ev_;

    // timers: deadline (ps) + handle, ordered
    struct Timer {
        uint64_t deadline_ps;
        void (*fn)(void *);
        void *arg;
    };
    std::map<uint64_t, Timer> timers_;                     // by handle
    std::set<std::pair<uint64_t, uint64_t>> timer_queue_; // (deadline_ps, handle)
    uint64_t next_timer_ = 1;
    uint64_t timers_fired_ = 0;
    sc_core::sc_event timer_ev_;

    // EH: one context per port
    struct PortEh {
        bool pending = false;
        bool running = false;
        uint64_t same_time_runs = 0;
        uint64_t last_time_ps = UINT64_MAX;
        sc_core::sc_event ev;
        sc_core::sc_process_handle thread;
    };
    std::vector<std::unique_ptr<PortEh>> eh_;
    sc_core::sc_event eh_idle_ev_;
    uint64_t eh_runs_ = 0;

    int lock_depth_ = 0;
    uint64_t ps_per_ns_ = 1000;
    HostQuirks quirks_;
    DmaSyncHook *dma_sync_ = nullptr;
    bus::PciConfigPort *pci_ = nullptr;
    std::function<bool()> msi_condition_; // set: the function can deliver MSI here
    unsigned msi_irq_ = 0;
    bool msi_mode_ = false; // the stack enabled MSI: handlers run on messages
    uint32_t msi_data_ = 0;
};

} // namespace satasim::harness
