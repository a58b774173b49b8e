// The SystemC models as the runner sees them (backend/hardware_view.h): the topology's
// interrupt line, host memory, disks, fault injector and links. The RTL backend, whose
// device side, memory and faults are the same models around its DUT, shows them through
// this too and adds its clock's rest (quiet()).
#pragma once

#include <memory>

#include "backend/hardware_view.h"
#include "backend/systemc/topology.h"

namespace satasim::harness {

class TopologyView : public HardwareView {
  public:
    explicit TopologyView(Topology &t);

    bool irq_level() const override { return t_.irq->level(); }
    const sc_core::sc_event &irq_changed_event() const override { return t_.irq->changed_event(); }
    uint64_t mem_alloc(size_t size, size_t align) override { return t_.mem->alloc(size, align, nullptr); }
    bool mem_write(uint64_t bus, const void *src, size_t len) override { return t_.mem->write(bus, src, len); }
    bool mem_read(uint64_t bus, void *dst, size_t len) override { return t_.mem->read(bus, dst, len); }
    const device::MediaStore *media(const DevAddr &a) const override;
    FaultEngine *faults() override { return faults_.get(); }
    bool atapi_event(const DevAddr &a, const std::string &action, uint64_t seed, uint32_t blocks) override;
    std::optional<uint64_t> atapi_disc_seed(const DevAddr &a) const override;
    bool send_device_fis(unsigned port, const sata::Fis &fis) override;
    // The models raise an interrupt in the delta cycles of its cause, except a link whose
    // OOB is still running (a drive just plugged: its COMINIT, then the PHY's own
    // negotiation), which may yet raise one on its own.
    bool quiet() const override;

  protected:
    Topology &t_;

  private:
    std::unique_ptr<FaultEngine> faults_; // over t_.faults, if the scenario has faults
};

} // namespace satasim::harness
