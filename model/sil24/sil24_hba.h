// Silicon Image SiI3124: a 4-port PCI-X SATA host controller with 31 command slots per
// port, Port Request Blocks (PRBs) activated from host memory or executed from on-chip
// LRAM, native command queuing and per-port interrupt logic (docs/hardware.md section 6).
//
// Register window. The chip has two memory BARs: BAR0 (global registers, 128 bytes) and
// BAR2 (port registers, 8 KiB per port). The stack's platform interface gives a driver one
// register window, so Sil24Hba itself is an MmioTarget that maps
//     BAR0 at window offset 0x0000 (0x0000..0x007F),
//     BAR2 at window offset 0x2000 (port n at 0x2000 + 0x2000 * n),
// (sil24::reg::kBar2Offset). A backend that models real PCI BARs can use bar(0) and
// bar(2) instead: each is an MmioTarget with offsets relative to that BAR.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/bus/pci_function.h"
#include "model/common/trace.h"
#include "model/link/sata_link.h"
#include "model/wave/wave_probe.h"

namespace satasim::sil24 {

struct Sil24Config {
    unsigned n_ports = 4;            // 1..4 (3124: 4; 3132: 2; 3131/3531: 1)
    link::Gen max_gen = link::Gen::Gen2; // PHY: 3 Gb/s (HOST_CTRL bit 24 when Gen2)
    bool pcix = true;                // on a PCI-X bus: HOST_CTRL latches TRDY/STOP/DEVSEL
    // The PCI-X completion-interrupt-loss erratum (docs/libata-eh.md 8.2). Without IRQ_WOC the
    // completion interrupt is acknowledged by reading PORT_SLOT_STAT; on PCI-X that read
    // is a split transaction whose clear takes effect pcix_ack_window_ns after the data
    // was sampled, so the COMPLETE status of a slot finishing inside that window is wiped
    // without the read having reported it: the completion raises no interrupt. Setting
    // IRQ_WOC (the drivers' workaround) avoids it. Only has an effect when pcix is true.
    bool pcix_irq_loss = false;
    double pcix_ack_window_ns = 2000; // MEM: model choice for the split-completion delay
    double core_clock_mhz = 133.0;    // controller core clock (PCI-X 133)
};

class Sil24Hba : public sc_core::sc_module, public bus::MmioTarget {
  public:
    Sil24Hba(sc_core::sc_module_name name, const Sil24Config &cfg, bus::HostMemory &mem,
             bus::IrqLine &irq, ModelTrace *trace = nullptr);
    ~Sil24Hba() override;

    // Size of the combined window (BAR0 + BAR2 of every port).
    uint32_t window_size() const;

    // The host-side endpoint of port n; the harness hands it and the device's endpoint to
    // SataLink::attach(), then calls connect_port(n, &link). A port with no link behaves
    // as an empty connector (SStatus.DET = 0).
    link::LinkEndpoint *port_endpoint(unsigned port);
    void connect_port(unsigned port, link::SataLink *link);

    // Combined window (see the file comment).
    uint32_t mmio_read32(uint32_t off) override;
    void mmio_write32(uint32_t off, uint32_t val) override;
    // BAR0 or BAR2 alone; nullptr for any other BAR number.
    bus::MmioTarget *bar(unsigned n);

    // Power-on state of every register and engine (ports come up with PORT_RST set).
    // Links are reset by their owner.
    void power_on_reset();

    // ---- fault hooks (model/fault/README.md). Power-on reset and clear_faults() disarm them.
    // The next `count` completion interrupts of the port (or every one within window_ns
    // from now) are swallowed: the command completes, its completion status bit is not set.
    // Error interrupts are never swallowed.
    void inject_lost_irq(unsigned port, unsigned count, uint64_t window_ns, const std::string &id);
    void clear_faults();

    const Sil24Config &config() const { return cfg_; }

    // The chip's PCI function (sil24_pci.cpp, docs/hardware.md 12.4): its configuration space;
    // its Bus Master Enable gates the PRB engines' memory accesses. power_on_reset() leaves it
    // alone (pci().reset() is the function's RST#).
    bus::PciFunction &pci() { return pci_; }
    static bus::PciSpec pci_spec();

    // Waveform probes (model/wave, sil24_wave.cpp): PORT_SLOT_STAT and PORT_IRQ_STAT of
    // every port, declared in sink under "<name>.port<n>". Off by default.
    void set_wave(wave::Sink *sink);

  private:
    class Port;
    class Bar;
    SC_HAS_PROCESS(Sil24Hba);
    void update_irq();
    uint32_t read_global(uint32_t off);
    void write_global(uint32_t off, uint32_t val);
    uint32_t host_ctrl_ro() const;
    void emit(const char *event, int port,
              std::vector<std::pair<std::string, TraceValue>> fields, std::string msg);

    Sil24Config cfg_;
    bus::PciFunction pci_;
    bus::HostMemory &mem_;
    bus::IrqLine &irq_;
    ModelTrace *trace_;
    std::vector<std::unique_ptr<Port>> ports_;
    std::unique_ptr<Bar> bar0_, bar2_;
    uint32_t host_ctrl_ = 0, phy_cfg_ = 0, flash_cmd_ = 0;
    sc_core::sc_time period_;
    wave::Sink *wave_ = nullptr; // null: no waveform (one test per call site)
    wave::PortRegisters wave_regs_; // slot_stat, irq_stat
    void wave_sample_all();
};

} // namespace satasim::sil24
