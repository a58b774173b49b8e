// The QEMU backend (backend/backend.h): starts QEMU with the scenario's disks, runs the
// stack's platform on its AHCI function (MMIO over qtest, DMA through guest RAM, the
// IOAPIC line as the interrupt) with the poller that waits for QEMU when nothing else can
// run. Its statistics: the qtest requests and round trips of the run.
#include "backend/qemu/qemu_backend.h"

#include "backend/qemu/qemu_machine.h"
#include "trace/report.h"
#include "trace/trace_sink.h"

namespace satasim::harness::qemu {

namespace {

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
        poller_ = std::make_unique<QemuPoller>("qemu_poller", *machine_);
    }
    PlatformBinding *platform() override { return binding_.get(); }
    void finish(const Scenario &, RunReport &report) override {
        report.backend_stats = {{"qemu_requests", machine_ ? machine_->client().requests() : 0},
                                {"qemu_round_trips", machine_ ? machine_->client().round_trips() : 0}};
        if (machine_)
            machine_->shutdown();
    }

  private:
    std::unique_ptr<QemuMachine> machine_;
    std::unique_ptr<QemuPoller> poller_;
    std::unique_ptr<PlatformBinding> binding_;
};

} // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<QemuBackend>(); }

} // namespace satasim::harness::qemu
