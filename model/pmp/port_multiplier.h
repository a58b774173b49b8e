// SATA Port Multiplier (SATA PM 1.1/1.2, docs/hardware.md section 7): one host port (the device
// end of the HBA port's SataLink) fanned out to 1..15 device ports, each the host end of
// its own SataLink to a drive. The PMP's own control port 15 answers SRST with the PMP
// signature and READ/WRITE PORT MULTIPLIER (E4h/E8h) with the GSCR and per-port PSCR
// registers; every other FIS is routed by its PM Port field.
//
// Model choices (MEM):
//  * Store and forward, one frame at a time in each direction: a frame from the host is
//    accepted (R_OK) once the PMP holds it and is then sent on the fan-out link; while it
//    is held the host link gets no R_RDY. Frames from the device ports queue toward the
//    host (each rewritten with its PM Port = fan-out port); while one waits, the device
//    links get no R_RDY. A frame lost on a fan-out link is recorded in that port's PSCR
//    SError (the host already saw R_OK).
//  * A frame from the host for a port that does not exist, has no cable or whose PHY is
//    not ready is refused with R_ERR.
//  * Frames from several device ports reach the host in arrival order whatever the host
//    does; keeping to one device at a time (command-based switching) is the host's job.
//    PmpConfig::fbs (FIS-based switching capable) is therefore a property the topology
//    reads (fbs_capable()); it changes nothing in the forwarding.
//  * COMRESET on the host link resets the control port (features, error-info enable, a
//    hang) but not the fan-out links. Whenever the host link comes back up (after a
//    COMRESET or a loss of the link) the PMP sends a D2H FIS with its signature from
//    port 15; frames in flight to or from the host are lost with the link. Power-on also
//    initialises every fan-out link.
//  * The first Register D2H FIS a drive sends after its fan-out link comes up (its
//    signature) is kept by the PMP unless the host has sent that port a FIS since: the
//    host reads signatures with an SRST to the port (docs/hardware.md 7.5, as libata and
//    FreeBSD do), and an unsolicited FIS would cut into a command-based-switching host's
//    command to another port (AHCI PxIS.IPMS).
//  * A COMINIT from a drive (hotplug, drive reset) is answered with a COMRESET on that
//    fan-out link (unless SControl holds DET 1 or 4); PSCR SError latches X and N.
//  * GSCR[32] bit p = PSCR SError(p) & GSCR[33] != 0. When a bit rises and asynchronous
//    notification is enabled (GSCR[96] bit 3) the PMP sends an SDB FIS with N=1 and
//    PM Port 15.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/common/trace.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"

namespace satasim::pmp {

constexpr unsigned kMaxPorts = 15;
constexpr uint8_t kCtrlPort = 15;
constexpr uint32_t kSignature = 0x96690101; // count 01, LBA 01 / 69 / 96 (docs/hardware.md 4)

// GSCR register numbers (docs/hardware.md 7.3) and PSCR numbers (7.4).
namespace gscr {
constexpr uint32_t PRODUCT = 0, REVISION = 1, PORT_INFO = 2, ERROR = 32, ERROR_EN = 33,
                   FEAT = 64, FEAT_EN = 96, SII_EARLY_ROK = 129;
constexpr uint32_t FEAT_BIST = 1u << 0, FEAT_PMREQ = 1u << 1, FEAT_SSC = 1u << 2,
                   FEAT_AN = 1u << 3;
} // namespace gscr
namespace pscr {
constexpr uint32_t SSTATUS = 0, SERROR = 1, SCONTROL = 2, SACTIVE = 3, SNOTIFICATION = 4;
}

// READ / WRITE PORT MULTIPLIER opcodes.
constexpr uint8_t kReadPm = 0xE4, kWritePm = 0xE8;

struct PmpConfig {
    unsigned n_ports = 5;          // fan-out device ports, 1..15 (GSCR[2])
    uint16_t vendor_id = 0x1095;   // GSCR[0] 15:0
    uint16_t device_id = 0x3726;   // GSCR[0] 31:16
    uint8_t revision = 0x01;       // GSCR[1] 15:8
    unsigned spec_minor = 1;       // PMP spec 1.<minor>: 1 (1.1) or 2 (1.2)
    bool async_notify = true;      // GSCR[64] bit 3
    uint32_t feat_other = 0;       // GSCR[64] bits besides AN (BIST 0, PMREQ 1, SSC 2)
    uint32_t feat_en_reset = 0;    // GSCR[96] after power-on / COMRESET
    // PSCR SControl reads 0 on a port with no drive attached: what is written still drives
    // the PHY. The JMB394 of dmesg corpus 07 (docs/hardware.md 7.6).
    bool sctl_reads_zero_empty = false;
    // SiI3726 (dmesg corpus 51, 2.6.28, and 52, 2.6.35: two units): after power-on and after
    // each COMRESET of the host link (a PMP reset), the first fan-out COMRESET the host
    // issues on a port other than 0 brings the link up with PSCR SControl.SPD reading 0,
    // whatever the host wrote before it ("SControl 300" on ports 1-3 where port 0, the empty
    // port 4 and the bridge on port 5 read the 320 libata wrote); later COMRESETs of that
    // port keep what is written (52's single-link reset of port 1: 320). The negotiation
    // itself honours the written limit. Inside the part's firmware; docs/hardware.md 7.6.
    bool sctl_spd_cleared_after_reset = false;
    bool fbs = false;              // FIS-based switching capable (see above)
    // The fan-out port that is the part's own enclosure management bridge (SEMB, its
    // "config port"), -1 if none: SiI3726 port 5 of 6, SiI4726 port 6 of 7. It has no
    // connector; its internal link comes up at 1.5 Gbps (PSCR SStatus 113) after power-on and
    // after each COMRESET through PSCR SControl (dmesg corpus 52: "ata1.05: SATA link up
    // 1.5 Gbps (SStatus 113 SControl 320)"). A scenario's disk on that port replaces it.
    int semb_port = -1;
    link::Gen max_gen = link::Gen::Gen2; // fastest rate of the PMP's PHYs
    // Control-port latencies (MEM): a register access, the SRST-release signature.
    double reg_access_us = 2;
    double srst_answer_us = 10;
    double cominit_answer_us = 5;  // COMINIT on a fan-out link until the PMP's COMRESET
};

// The two parts named in the issue (SiI3726-like and SiI4726-like).
PmpConfig sii3726(unsigned n_ports = 5);
PmpConfig sii4726(unsigned n_ports = 5);
// Parts seen in field logs, by what their GSCRs report there (docs/hardware.md 7.6):
// SiI5744 (0x1095:0x5744 r33, PM 1.1, 3.0 Gbps, "feat 0x1/0x9"), JMicron JMB394
// (0x197b:0x0325 r0, PM 1.2, 3.0 Gbps, "feat 0x5/0xf") and JMB575 (0x197b:0x5755 r0, PM 1.2,
// 6.0 Gbps, "feat 0x5/0xf").
PmpConfig sii5744(unsigned n_ports = 2);
PmpConfig jmb394(unsigned n_ports = 5);
PmpConfig jmb575(unsigned n_ports = 5);
// The part a scenario names (sii3726 | sii4726 | sii5744 | jmb394 | jmb575); false if unknown.
bool product_config(const std::string &name, unsigned n_ports, PmpConfig &out);

class PortMultiplier : public sc_core::sc_module, public link::LinkEndpoint {
  public:
    PortMultiplier(sc_core::sc_module_name name, const PmpConfig &cfg,
                   ModelTrace *trace = nullptr, int host_port = -1);
    ~PortMultiplier() override;

    // Host side: attach(hba_endpoint, this) on the host link, then connect_host(&link).
    void connect_host(link::SataLink *link);
    // Device port p: attach(port_endpoint(p), disk) on its link, then connect_port(p, &link).
    // A port without a link is an empty connector (PSCR SStatus 0).
    link::LinkEndpoint *port_endpoint(unsigned p);
    void connect_port(unsigned p, link::SataLink *link);

    // Power-on state of the control port and of every port; fan-out links are then
    // initialised (COMRESET) by the PMP. Links are reset by their owner.
    void power_on_reset();

    // Fault hook: the control port stops answering (FISes to port 15 are accepted and
    // dropped) until the next COMRESET on the host link. Routing continues.
    void hang(const std::string &id = "");
    bool hung() const { return hung_; }
    // Fault hook: READ PORT MULTIPLIER of fan-out port `port`'s PSCR `reg` is aborted (ERR,
    // ABRT) from now on, whatever resets come, until a power cycle: a broken register of one
    // unit (dmesg corpus 51). Writes and other registers still work.
    void abort_pscr_read(unsigned port, unsigned reg, const std::string &id = "");
    // Disarms the fault hooks (a fuzz input's reset between runs).
    void clear_faults() {
        hung_ = false;
        aborted_reads_.clear();
    }

    const PmpConfig &config() const { return cfg_; }
    bool fbs_capable() const { return cfg_.fbs; }

    // Register views (tests, traces): what READ PORT MULTIPLIER would return.
    bool read_gscr(uint32_t reg, uint64_t &val) const;
    bool read_pscr(unsigned port, uint32_t reg, uint64_t &val) const;

    // LinkEndpoint, host side.
    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override;
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void receive_error(link::LinkError err) override;

  protected:
    void start_of_simulation() override;

  private:
    void reset_control_port(); // shared by power-on and a host-link COMRESET
    class DevPort;
    SC_HAS_PROCESS(PortMultiplier);
    void down_thread();  // frames from the host: routed to a fan-out link or port 15
    void up_thread();    // frames toward the host
    void power_on_method();
    void control_fis(const sata::Fis &fis);
    void pm_command(const sata::Taskfile &tf);
    bool write_gscr(uint32_t reg, uint64_t val);
    bool write_pscr(unsigned port, uint32_t reg, uint64_t val);
    void send_up(sata::Fis fis);
    void serror_set(unsigned port, uint32_t bits);
    void update_error_info();
    void trace(const char *event, int fan_port,
               std::vector<std::pair<std::string, TraceValue>> fields = {}, std::string msg = {});

    PmpConfig cfg_;
    ModelTrace *trace_;
    int host_port_;
    link::SataLink *host_link_ = nullptr;
    std::vector<std::unique_ptr<DevPort>> ports_;
    std::deque<sata::Fis> down_q_, up_q_;
    bool down_busy_ = false;    // a frame from the host is being routed
    bool up_busy_ = false;      // a frame is on its way to the host
    sc_core::sc_event down_ev_, up_ev_, power_on_ev_;
    uint64_t epoch_ = 0;        // bumped by host COMRESET / power-on: queued work dropped

    // Control port state.
    bool hung_ = false;
    std::vector<std::pair<unsigned, uint32_t>> aborted_reads_; // (port, PSCR) reads aborted
    bool srst_held_ = false;
    bool sig_due_ = false;      // send the signature once the host link is up
    uint32_t error_en_ = 0;     // GSCR[33]
    uint32_t feat_en_ = 0;      // GSCR[96]
    uint32_t error_info_ = 0;   // GSCR[32], as last evaluated
    uint32_t vendor129_ = 0;    // SiI GSCR[129]
};

} // namespace satasim::pmp
