// The QEMU backend (backend/backend.h): starts QEMU with the scenario's disks, runs the
// stack's platform on its AHCI function (MMIO over qtest, DMA through guest RAM, the
// IOAPIC line as the interrupt) with the poller that waits for QEMU when nothing else can
// run; its view (backend/hardware_view.h) is the interrupt line and guest memory, which is
// all QEMU shows from outside (no disk media, no fault engine, no device-side link), and the
// trays of its ide-cd drives (QMP). Its
// statistics: the qtest requests and round trips of the run.
#include "backend/qemu/qemu_backend.h"

#include <cstring>

#include "backend/qemu/qemu_machine.h"
#include "backend/backend_stats.h"
#include "trace/trace_sink.h"

namespace satasim::harness::qemu {

namespace {

// QEMU's interrupt line and guest RAM. Host memory is the allocator's host-side shadow of
// guest RAM (qemu_machine.h): what a step writes is copied to guest RAM at once, and guest
// RAM is copied back before a step reads, as the stack's DMA syncs do around a command.
class QemuView : public HardwareView {
  public:
    explicit QemuView(QemuMachine &m) : m_(m) {}
    bool irq_level() const override { return m_.irq().level(); }
    const sc_core::sc_event &irq_changed_event() const override { return m_.irq().changed_event(); }
    uint64_t mem_alloc(size_t size, size_t align) override {
        uint8_t *cpu = nullptr;
        const uint64_t bus = m_.mem().alloc(size, align, &cpu);
        m_.to_device(bus, cpu, size); // zeroed in guest RAM too
        return bus;
    }
    bool mem_write(uint64_t bus, const void *src, size_t len) override {
        if (!m_.mem().write(bus, src, len))
            return false;
        m_.to_device(bus, m_.mem().map(bus, len), len);
        return true;
    }
    bool mem_read(uint64_t bus, void *dst, size_t len) override {
        uint8_t *cpu = m_.mem().map(bus, len);
        if (!cpu)
            return false;
        m_.to_cpu(bus, cpu, len);
        std::memcpy(dst, cpu, len);
        return true;
    }

    // Nothing in flight on any port and the line as applied (one qtest round trip): QEMU
    // changes registers only for a command or an MMIO access. A poll for what QEMU never
    // does (PxTFD.BSY clear before FIS receive is enabled, docs/qemu-backend.md) then costs
    // no million round trips.
    bool settled() override { return m_.quiescent(); }

    // The ide-cd drives: tray events through QMP, the disc the harness wrote their image from.
    bool atapi_event(const DevAddr &a, const std::string &action, uint64_t seed, uint32_t blocks) override {
        return !a.pmp_port && !a.devno && m_.tray_event(a.port, action, seed, blocks);
    }
    std::optional<uint64_t> atapi_disc_seed(const DevAddr &a) const override {
        if (a.pmp_port || a.devno)
            return std::nullopt;
        return m_.disc_seed(a.port);
    }

  private:
    QemuMachine &m_;
};

class QemuBackend : public Backend {
  public:
    void build(const Context &ctx) override {
        machine_ = std::make_unique<QemuMachine>(ctx.sc, ctx.work_dir, ctx.sc.host.port_mask);
        PlatformBinding::FailFn fail = ctx.fail;
        machine_->set_on_lost([fail](const std::string &why) { fail("QEMU lost during the run: " + why); });
        ctx.sink.emit_harness("qemu.start", SATA_TC_INFO, -1,
                              {{"pid", TraceValue::integer(int64_t(machine_->client().pid()))},
                               {"pci", TraceValue::str(machine_->pci_summary())}},
                              "QEMU q35 AHCI at " + machine_->pci_summary());
        binding_ = std::make_unique<PlatformBinding>("platform", *machine_, machine_->mem(), machine_->irq(),
                                                     ctx.sink, ctx.fail);
        binding_->set_dma_sync(machine_.get());
        // the stack's PCI probe reads QEMU's own configuration space (IDs, BAR5, MSI capability);
        // no MSI delivery: qtest intercepts the IOAPIC's inputs, not message writes (INTx only)
        binding_->set_pci(machine_.get());
        poller_ = std::make_unique<QemuPoller>("qemu_poller", *machine_);
        view_ = std::make_unique<QemuView>(*machine_);
    }
    PlatformBinding *platform() override { return binding_.get(); }
    HardwareView *view() override { return view_.get(); }
    void finish(const Scenario &, BackendStats &report) override {
        report.backend_stats = {{"qemu_requests", machine_ ? machine_->client().requests() : 0},
                                {"qemu_round_trips", machine_ ? machine_->client().round_trips() : 0}};
        if (machine_)
            machine_->shutdown();
    }

  private:
    std::unique_ptr<QemuMachine> machine_;
    std::unique_ptr<QemuPoller> poller_;
    std::unique_ptr<PlatformBinding> binding_;
    std::unique_ptr<QemuView> view_;
};

} // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<QemuBackend>(); }

} // namespace satasim::harness::qemu
