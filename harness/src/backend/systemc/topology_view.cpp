// The SystemC models as the runner sees them (topology_view.h).
#include "backend/systemc/topology_view.h"

namespace satasim::harness {

namespace {

// The scenario's fault injector as the runner's fault engine.
class InjectorEngine : public FaultEngine {
  public:
    explicit InjectorEngine(fault::FaultInjector &f) : f_(f) {}
    void workload_started() override { f_.workload_started(); }
    void start(size_t fault) override { f_.start_fault(fault); }
    unsigned fired(size_t fault) const override { return f_.fired(fault); }
    bool time_firings_pending() const override { return f_.time_firings_pending(); }
    const sc_core::sc_event &fired_event() const override { return f_.fired_event(); }

  private:
    fault::FaultInjector &f_;
};

} // namespace

TopologyView::TopologyView(Topology &t) : t_(t) {
    if (t.faults)
        faults_ = std::make_unique<InjectorEngine>(*t.faults);
}

const device::MediaStore *TopologyView::media(const DevAddr &a) const {
    device::SataDisk *disk = t_.disk_at(a);
    return disk ? &disk->media() : nullptr;
}

bool TopologyView::send_device_fis(unsigned port, const sata::Fis &fis) {
    auto it = t_.links.find(port);
    return it != t_.links.end() && it->second->send_from_device(fis) == link::FrameStatus::Ok;
}

} // namespace satasim::harness
