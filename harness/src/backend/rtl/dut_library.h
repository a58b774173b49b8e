// A DUT's shared object loaded (dlopen) and its interface checked against the profile.
#pragma once

#include <string>

#include "backend/rtl/dut_abi.h"
#include "backend/rtl/dut_profile.h"

namespace satasim::harness::rtl {

class DutLibrary {
  public:
    // Throws std::runtime_error: not loadable, no satasim_dut_api_v1, another ABI version,
    // or ports / widths (AXI, PHY) or PHY clocks other than the profile's; ScenarioError
    // (file, line, key) for bus clocks (reg_clk, dma_clk) other than the profile's.
    DutLibrary(const std::string &so_path, const DutProfile &p);
    ~DutLibrary();
    DutLibrary(const DutLibrary &) = delete;
    DutLibrary &operator=(const DutLibrary &) = delete;

    const satasim_dut_api &api() const { return *api_; }

  private:
    void *handle_ = nullptr;
    const satasim_dut_api *api_ = nullptr;
};

} // namespace satasim::harness::rtl
