// Waveform probes of the SiI3124 (model/wave): PORT_SLOT_STAT and PORT_IRQ_STAT per port,
// the values a register read returns (without the read's side effects). Sampled where they
// can change (interrupt update, MMIO write, slot completion); unchanged values are not
// reported.
#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

void Sil24Hba::set_wave(wave::Sink *sink) {
    wave_ = sink;
    wave_regs_.attach(sink, basename(), unsigned(ports_.size()), {"slot_stat", "irq_stat"});
    wave_sample_all();
}

void Sil24Hba::wave_sample_all() {
    for (auto &p : ports_)
        p->wave_sample();
}

void Sil24Hba::Port::wave_sample() { hba_.wave_regs_.set(idx_, {slot_stat(), irq_stat_value()}); }

} // namespace satasim::sil24
