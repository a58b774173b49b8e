// AHCI 1.3.1 host bus adapter: generic host control, per-port register sets and DMA
// engines (command list, command tables, PRDT, received-FIS area), interrupt logic.
// Public interface only is fixed here; the port engines live in their own files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/bus/bus_fault.h"
#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/bus/pci_function.h"
#include "model/common/trace.h"
#include "model/link/sata_link.h"
#include "model/wave/wave_probe.h"

namespace satasim::ahci {

// An internal failure of a port's engine (the hba_error fault, ahci_faults.cpp): what fails,
// and how the port shows it (in the order of the fault's `error` and `irq` names).
enum class HbaErrorKind : uint8_t { Internal, HostBusData, HostBusFatal };
enum class HbaErrorIrq : uint8_t { Raised, None, AllOnes };

struct AhciConfig {
    unsigned n_ports = 4;            // 1..32; PI = low n_ports bits; CAP.NP = n_ports-1
    unsigned n_slots = 32;           // 1..32; CAP.NCS = n_slots-1
    link::Gen iss = link::Gen::Gen3; // CAP.ISS
    bool ncq = true;                 // CAP.SNCQ
    bool s64a = true;                // CAP.S64A
    bool sclo = true;                // CAP.SCLO
    bool ssntf = true;               // CAP.SSNTF
    bool spm = false;                // CAP.SPM (port multipliers, later)
    bool fbss = false;               // CAP.FBSS (needs spm); PxCMD.FBSCP per fbscp_ports
    unsigned fbs_ado = 2;            // PxFBS.ADO, 2..15: a hint to software, not a limit
    uint32_t fbscp_ports = ~0u;      // with fbss: ports with PxCMD.FBSCP (FBS-capable port)
    bool sss = false;                // CAP.SSS (staggered spin-up)
    // Link power management (AHCI 1.3.1 3.1.1, 3.3.7, 8.3; docs/hardware.md 5.10): CAP.SALP
    // (PxCMD.ALPE/ASP writable, aggressive entry when the port goes idle), CAP.PSC and
    // CAP.SSC (the HBA takes Partial / Slumber, its own requests, ICC's and the device's).
    bool salp = false, psc = false, ssc = false;
    // DevSleep (AHCI 1.3.1 3.1.10, 3.3.17, 8.5; docs/hardware.md 5.11): CAP2.SDS (PxDEVSLP.DSP on
    // every port) and CAP2.SADM (aggressive DevSleep: PxDEVSLP.ADSE writable, DEVSLP asserted
    // after DITO x (DM + 1) ms of an idle port in Slumber), CAP2.DESO (entry from Slumber
    // only: always, in this model); devslp_dm the DITO multiplier PxDEVSLP.DM reads.
    bool sds = false;
    unsigned devslp_dm = 0;
    uint32_t version = 0x00010301;   // VS
    double core_clock_mhz = 150.0;   // controller core clock: the unit of internal latencies
};

class AhciHba : public sc_core::sc_module, public bus::MmioTarget {
  public:
    static constexpr uint32_t kBarSize = 0x1100; // generic block + 32 ports

    AhciHba(sc_core::sc_module_name name, const AhciConfig &cfg, bus::HostMemory &mem,
            bus::IrqLine &irq, ModelTrace *trace = nullptr);
    ~AhciHba() override;

    // The host-side endpoint of port n; the harness hands it and the device's endpoint to
    // SataLink::attach(), then calls connect_port(n, &link). A port with no link behaves
    // as an empty connector (SStatus.DET = 0).
    link::LinkEndpoint *port_endpoint(unsigned port);
    void connect_port(unsigned port, link::SataLink *link);

    uint32_t mmio_read32(uint32_t off) override;
    void mmio_write32(uint32_t off, uint32_t val) override;

    // Power-on state of every register and engine (what GHC.HR also does, plus the
    // registers HR leaves alone). Links are reset by their owner.
    void power_on_reset();

    // ---- fault hooks (model/fault/README.md). Power-on reset and clear_faults() disarm them.
    // The next `count` completion interrupts of the port (or every one within window_ns
    // from now) are swallowed: the command completes, its completion status bit is not set.
    // Error interrupts are never swallowed.
    void inject_lost_irq(unsigned port, unsigned count, uint64_t window_ns, const std::string &id);
    // The host bus answers the port's next DMA access of the class bus.access with an error
    // (a master or target abort): the access moves nothing and the port stops with PxIS.HBFS.
    void inject_host_bus_error(unsigned port, const bus::BusErrorParams &bus, const std::string &id);
    // The port's engine fails inside at its next DMA access (AHCI 1.3.1 6.1): an internal
    // error (SError.ERR.E, PxIS.IFS), a host bus data (HBDS) or fatal (HBFS) error; the engine
    // stops. irq: the PxIS bit raised, nothing raised (the commands never complete), or the
    // bit raised and the port's next PxIS read answered with all ones.
    void inject_hba_error(unsigned port, HbaErrorKind error, HbaErrorIrq irq, const std::string &id);
    void clear_faults();

    const AhciConfig &config() const { return cfg_; }

    // The HBA's PCI function (ahci_pci.cpp, docs/hardware.md 12.3): its configuration space;
    // its Bus Master Enable gates the port engines' memory accesses. power_on_reset() leaves
    // it alone (pci().reset() is the function's RST#).
    bus::PciFunction &pci() { return pci_; }
    static bus::PciSpec pci_spec(const AhciConfig &cfg);
    static uint32_t abar_size(unsigned n_ports); // BAR5's size for that many ports

    // Waveform probes (model/wave, ahci_wave.cpp): PxIS, PxCI and PxSACT of every port,
    // declared in sink under "<name>.port<n>". Off by default.
    void set_wave(wave::Sink *sink);

  private:
    class Port;
    SC_HAS_PROCESS(AhciHba);
    void update_irq();
    void hba_reset();       // GHC.HR
    void hr_done_method();  // GHC.HR self-clears
    uint32_t read_generic(uint32_t off) const;
    void write_generic(uint32_t off, uint32_t val);
    void emit(const char *event, int port,
              std::vector<std::pair<std::string, TraceValue>> fields, std::string msg);
    AhciConfig cfg_;
    bus::PciFunction pci_;
    bus::HostMemory &mem_;
    bus::IrqLine &irq_;
    ModelTrace *trace_;
    std::vector<std::unique_ptr<Port>> ports_;
    uint32_t ghc_ = 0, is_ = 0, cap_ = 0, pi_ = 0;
    uint32_t ccc_ctl_ = 0, ccc_ports_ = 0, bohc_ = 0;
    sc_core::sc_time period_; // one core clock cycle
    sc_core::sc_event hr_done_ev_;
    wave::Sink *wave_ = nullptr; // null: no waveform (one test per call site)
    wave::PortRegisters wave_regs_; // PxIS, PxCI, PxSACT
    void wave_sample_all();
};

} // namespace satasim::ahci
