// Waveform probes of the AHCI HBA (model/wave): PxIS, PxCI and PxSACT per port. The
// registers are sampled where they can change (interrupt update, MMIO write, slot
// completion, Set Device Bits); unchanged values are not reported.
#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

void AhciHba::set_wave(wave::Sink *sink) {
    wave_ = sink;
    wave_regs_.attach(sink, basename(), unsigned(ports_.size()), {"PxIS", "PxCI", "PxSACT"});
    wave_sample_all();
}

void AhciHba::wave_sample_all() {
    for (auto &p : ports_)
        p->wave_sample();
}

void AhciHba::Port::wave_sample() { hba_.wave_regs_.set(idx_, {is_value(), ci_, sact_}); }

} // namespace satasim::ahci
