// Waveform probes of one SataLink (see link_wave.h).
#include "model/link/link_wave.h"

#include "model/link/link_rtl.h"

namespace satasim::link {

using namespace wave::prim_code;

namespace {

double gbps(Gen g) {
    return g == Gen::Gen1 ? 1.5 : g == Gen::Gen2 ? 3.0 : g == Gen::Gen3 ? 6.0 : 0.0;
}

// n dwords at gen, rounded once as SataLink's own frame and burst times are.
uint64_t dwords_time(Gen g, uint64_t n) {
    const double r = gbps(g);
    return r > 0 ? uint64_t(sc_core::sc_time(double(n) * 40.0 / r, sc_core::SC_NS).value()) : 0;
}

uint8_t decode(uint32_t d) {
    switch (d) {
    case prim::kAlign: return kAlign;
    case prim::kCont: return kCont;
    case prim::kSync: return kSync;
    case prim::kXRdy: return kXRdy;
    case prim::kRRdy: return kRRdy;
    case prim::kSof: return kSof;
    case prim::kEof: return kEof;
    case prim::kRIp: return kRIp;
    case prim::kROk: return kROk;
    case prim::kRErr: return kRErr;
    case prim::kHold: return kHold;
    case prim::kHolda: return kHolda;
    case prim::kWtrm: return kWtrm;
    case prim::kDmat: return kDmat;
    default: return kBad;
    }
}

} // namespace

LinkWave::LinkWave(SataLink &link, wave::Sink *sink, const std::string &scope, int port) : link_(link) {
    using wave::Group;
    phy_rdy_.attach(sink, {scope, "phy_rdy", 1, Group::Phy, port, 0});
    gen_.attach(sink, {scope, "gen", 2, Group::Phy, port, 0});
    const char *dirs[2] = {"h2d", "d2h"};
    for (int i = 0; i < 2; ++i) {
        const std::string s = scope + "." + dirs[i];
        if (link.mode() == SataLink::Mode::Dword)
            dir_[i].prim.attach(sink, {s, "prim", 8, Group::Prims, port, kNone});
        dir_[i].frame.attach(sink, {s, "frame", 1, Group::Fis, port, 0});
        dir_[i].fis.attach(sink, {s, "fis", 8, Group::Fis, port, 0});
    }
}

void LinkWave::phy() {
    const bool up = link_.phy_ready();
    phy_rdy_.set(up);
    gen_.set(up ? unsigned(link_.gen()) : 0);
    const uint64_t t = wave::now();
    for (Dir &x : dir_) {
        if (up)
            x.at(x.prim, t, kSync); // an idle link sends SYNC (never ticked)
        else
            x.cut(t);
        x.in_cont = false;
        x.continued = kSync;
    }
}

void LinkWave::frame(bool from_host, const sata::Fis &fis) {
    Dir &x = dir_[from_host ? 0 : 1];
    const uint8_t type = fis.bytes.empty() ? 0 : fis.bytes[0];
    if (link_.mode() == SataLink::Mode::Dword) {
        x.pending_type = type; // the SOF on the wire starts it
        return;
    }
    // FIS level: no dwords are ticked. SOF and EOF where the frame timing puts them: after
    // the X_RDY/R_RDY round trip (4 dwords), and after SOF, the FIS dwords and the CRC.
    const uint64_t t0 = wave::now();
    const Gen g = link_.gen();
    const uint64_t sof = t0 + dwords_time(g, 4), eof = t0 + dwords_time(g, 4 + 1 + fis.dwords() + 1);
    x.at(x.frame, sof, 1);
    x.at(x.fis, sof, type);
    x.at(x.frame, eof, 0);
    x.at(x.fis, eof, 0);
}

uint64_t LinkWave::dword_time() {
    const uint64_t t = wave::now();
    const uint64_t cyc = link_.rtl()->cycles();
    if (t != base_time_) { // a new burst: SataLink waits for each burst's time after it
        base_time_ = t;
        base_cycle_ = cyc;
    }
    return t + dwords_time(link_.gen(), cyc - base_cycle_);
}

void LinkWave::dword(bool from_host, uint32_t d, bool isk) {
    Dir &x = dir_[from_host ? 0 : 1];
    uint8_t c;
    if (isk) {
        c = decode(d);
        if (c == kCont) {
            x.in_cont = true;
        } else if (c != kAlign) { // an ALIGN does not end a CONT run
            x.in_cont = false;
            x.continued = c;
        }
    } else {
        c = x.in_cont ? x.continued : kData; // junk after CONT continues the primitive
    }
    const uint64_t t = dword_time();
    x.at(x.prim, t, c);
    if (isk && c == kSof) {
        x.at(x.frame, t, 1);
        x.at(x.fis, t, x.pending_type);
    } else if (isk && (c == kEof || c == kSync)) { // EOF, or a SYNC escape
        x.at(x.frame, t, 0);
        x.at(x.fis, t, 0);
    }
}

} // namespace satasim::link
