#include "backend/rtl/dut_library.h"

#include <dlfcn.h>

#include <stdexcept>

#include "scenario/yaml_walk.h"

namespace satasim::harness::rtl {

DutLibrary::DutLibrary(const std::string &so_path, const DutProfile &p) {
    // RTLD_LOCAL: the object's own Verilator runtime stays its own (it is linked
    // -Bsymbolic), apart from the one satasim's link models use.
    handle_ = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
        throw std::runtime_error("cannot load the DUT '" + so_path + "': " + dlerror());
    auto fn = reinterpret_cast<satasim_dut_api_fn>(dlsym(handle_, SATASIM_DUT_API_SYMBOL));
    if (!fn)
        throw std::runtime_error("'" + so_path + "' has no " SATASIM_DUT_API_SYMBOL " (not a satasim DUT build)");
    api_ = fn();
    if (!api_ || api_->abi_version != SATASIM_DUT_ABI_VERSION)
        throw std::runtime_error("'" + so_path + "': DUT ABI version " +
                                 std::to_string(api_ ? api_->abi_version : 0) + ", satasim speaks " +
                                 std::to_string(SATASIM_DUT_ABI_VERSION));
    if (api_->ports != p.ports || api_->data_width != p.data_width || api_->addr_width != p.addr_width ||
        api_->reg_addr_width != p.reg_addr_width)
        throw std::runtime_error("'" + so_path + "' was built for " + std::to_string(api_->ports) + " ports, " +
                                 std::to_string(api_->data_width) + "/" + std::to_string(api_->addr_width) +
                                 "-bit AXI, " + std::to_string(api_->reg_addr_width) +
                                 "-bit register addresses; the profile says " + std::to_string(p.ports) + ", " +
                                 std::to_string(p.data_width) + "/" + std::to_string(p.addr_width) + ", " +
                                 std::to_string(p.reg_addr_width));
    if (api_->phy_width != p.phy_width || bool(api_->phy_clocks) != p.phy_clocks)
        throw std::runtime_error("'" + so_path + "' was built for a " + std::to_string(api_->phy_width) + "-bit PHY " +
                                 (api_->phy_clocks ? "with" : "without") + " PHY clocks; the profile says " +
                                 std::to_string(p.phy_width) + "-bit " + (p.phy_clocks ? "with" : "without"));
    if (api_->phy_pins != p.phy_pins || api_->phy_sideband_width != p.phy_sideband_width)
        throw std::runtime_error("'" + so_path + "' was built with PHY pin groups " + std::to_string(api_->phy_pins) +
                                 " and a " + std::to_string(api_->phy_sideband_width) +
                                 "-bit sideband; the profile says " + std::to_string(p.phy_pins) + " and " +
                                 std::to_string(p.phy_sideband_width));
    const Parser err(p.file);
    // The interrupt output the profile uses (the glue found which the top has; not in the
    // build key, so one build serves a profile with either).
    const uint32_t irq_need = p.irq_per_port ? SATASIM_DUT_IRQ_PER_PORT : SATASIM_DUT_IRQ_LEVEL;
    if (!(api_->irq_outputs & irq_need))
        err.fail(profile_line(p, "interface.irq_per_port"), "interface.irq_per_port",
                 p.irq_per_port ? "one interrupt line per port, but the top module '" + p.top +
                                      "' has no output irq_port (docs/rtl-controller.md, interrupts)"
                                : "the top module '" + p.top +
                                      "' has no output irq (one line for the controller); a top with one line per "
                                      "port (irq_port) says interface.irq_per_port: true");
    // The bus clocks: a build key has them, so a mismatch is an object from elsewhere.
    const struct {
        uint32_t built;
        double mhz;
        const char *key, *clk;
    } clocks[] = {{api_->reg_clock, p.reg_clock_mhz, "interface.reg_clock_mhz", "reg_clk"},
                  {api_->dma_clock, p.dma_clock_mhz, "interface.dma_clock_mhz", "dma_clk"}};
    for (const auto &c : clocks)
        if (bool(c.built) != (c.mhz > 0))
            err.fail(profile_line(p, c.key), c.key,
                     "'" + so_path + "' was built " + (c.built ? "with " : "without ") + c.clk + "; the profile " +
                         (c.mhz > 0 ? "gives it" : "does not give it"));
}

// The object stays loaded until the process exits: its Verilator runtime has static
// state with exit-time destructors.
DutLibrary::~DutLibrary() = default;

} // namespace satasim::harness::rtl
