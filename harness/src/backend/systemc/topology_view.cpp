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

bool TopologyView::quiet() const {
    auto busy = [](const auto &links) {
        for (const auto &l : links)
            if (l.second && l.second->oob_in_progress())
                return true;
        return false;
    };
    return !busy(t_.links) && !busy(t_.fanout_links) && !busy(t_.slave_links);
}

bool TopologyView::send_device_fis(unsigned port, const sata::Fis &fis) {
    auto it = t_.links.find(port);
    return it != t_.links.end() && it->second->send_from_device(fis) == link::FrameStatus::Ok;
}

bool TopologyView::atapi_event(const DevAddr &a, const std::string &action, uint64_t seed, uint32_t blocks) {
    auto it = t_.atapis.find(a.port);
    if (a.pmp_port || a.devno || it == t_.atapis.end())
        return false;
    atapi::AtapiDevice &cd = *it->second;
    if (action == "open")
        return cd.open_tray();
    if (action == "close")
        cd.close_tray();
    else if (action == "remove")
        cd.remove_disc();
    else if (action == "change") {
        if (cd.unit().prevent())
            return cd.open_tray(); // refused: the eject request is all that happens
        cd.change_medium(atapi::Disc{blocks, seed});
    } else
        return false;
    return true;
}

std::optional<uint64_t> TopologyView::atapi_disc_seed(const DevAddr &a) const {
    auto it = t_.atapis.find(a.port);
    if (a.pmp_port || a.devno || it == t_.atapis.end() || !it->second->unit().medium_present())
        return std::nullopt;
    return it->second->unit().disc().seed;
}

} // namespace satasim::harness
