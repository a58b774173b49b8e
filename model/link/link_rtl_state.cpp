// LinkRtlPair's whole state as numbers (link_rtl.h State): every register and port of the
// verilated pair, and the cable's in-flight dwords, for the frame fast path
// (link_fast_path.h). The register names are Verilator's for model/link/rtl/sata_link.v
// inside sata_link_pair.v: a register added to the RTL must be added here, and the fast
// path's lockstep check (tests and SATASIM_LINK_FASTPATH=lockstep) fails until it is.
#include "model/link/link_rtl.h"

#include <array>
#include <cstring>
#include <stdexcept>

#include "Vsata_link_pair.h"
#include "Vsata_link_pair___024root.h"

namespace satasim::link {

namespace {

using Root = Vsata_link_pair___024root;

struct FieldAccess {
    LinkRtlPair::StateField info;
    const char *isk_name; // resolved into info.isk on first use
};

// Every register and port of the pair, once: X(expr, data, isk) with expr the Verilator
// member, data whether it is a data register, isk the K flag field's name (or nullptr). The
// field table and the straight-line capture/restore below are all expanded from this list,
// so the three cannot disagree (a table of accessor functions cost 89 indirect calls each
// way, a quarter of the fast path's time per frame phase).
#define SATASIM_CTL(X, expr) X(expr, false, nullptr)
// One side: P port prefix (h_ / d_), I instance (host / device).
#define SATASIM_SIDE(X, P, I)                                                                  \
    SATASIM_CTL(X, P##phy_tx_isk) SATASIM_CTL(X, P##tx_pop) SATASIM_CTL(X, P##tx_done)         \
    SATASIM_CTL(X, P##tx_status) SATASIM_CTL(X, P##tx_dmat) SATASIM_CTL(X, P##rx_valid)        \
    SATASIM_CTL(X, P##rx_sof) SATASIM_CTL(X, P##rx_end) SATASIM_CTL(X, P##rx_crc_ok)           \
    SATASIM_CTL(X, P##rx_abort) SATASIM_CTL(X, P##bad_prim) SATASIM_CTL(X, P##state)           \
    SATASIM_CTL(X, P##phy_rx_isk) SATASIM_CTL(X, P##tx_req) SATASIM_CTL(X, P##tx_valid)        \
    SATASIM_CTL(X, P##tx_last) SATASIM_CTL(X, P##rx_full) SATASIM_CTL(X, P##rx_dmat)           \
    SATASIM_CTL(X, P##rx_verdict) SATASIM_CTL(X, P##rx_accept)                                 \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__rx_last_prim)                              \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__rx_in_cont)                                \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__align_cnt)                                 \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__enc_last)                                  \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__enc_reps)                                  \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__enc_cont_sent)                             \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__state)                                     \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__rx_have_held)                              \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__rx_crc_good)                               \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__tx_got_dmat)                               \
    SATASIM_CTL(X, sata_link_pair__DOT__##I##__DOT__sync_owed)                                 \
    X(P##phy_tx_data, true, #P "phy_tx_isk") X(P##rx_data, true, nullptr)                      \
    X(P##phy_rx_data, true, #P "phy_rx_isk") X(P##tx_data, true, nullptr)                      \
    X(sata_link_pair__DOT__##I##__DOT__junk_lfsr, true, nullptr)                               \
    X(sata_link_pair__DOT__##I##__DOT__scr, true, nullptr)                                     \
    X(sata_link_pair__DOT__##I##__DOT__crc, true, nullptr)                                     \
    X(sata_link_pair__DOT__##I##__DOT__rx_held, true, nullptr)
#define SATASIM_LINK_FIELDS(X)                                                                 \
    SATASIM_CTL(X, clk) SATASIM_CTL(X, rst) SATASIM_CTL(X, i_phy_rdy)                          \
    SATASIM_CTL(X, __Vtrigrprev__TOP__clk) SATASIM_CTL(X, __VactContinue)                      \
    SATASIM_CTL(X, __VstlIterCount) SATASIM_CTL(X, __VactIterCount)                            \
    SATASIM_SIDE(X, h_, host) SATASIM_SIDE(X, d_, device)

#define SATASIM_FIELD_INFO(expr, data, isk) FieldAccess{{#expr, data, -1}, isk},
FieldAccess g_fields[] = {SATASIM_LINK_FIELDS(SATASIM_FIELD_INFO)};
#undef SATASIM_FIELD_INFO

constexpr size_t kRegFields = sizeof(g_fields) / sizeof(g_fields[0]);
// The cable after the registers: per direction (host->device, device->host), per age
// (0 = the dword the peer reads at the next clock), the K flag then the dword.
constexpr size_t kRingFields = 2 * LinkRtlPair::kWireDelay * 2;
static_assert(kRegFields + kRingFields == LinkRtlPair::State::kFields,
              "LinkRtlPair::State::kFields must count every register and cable field");

const char *const kRingNames[kRingFields] = {
    "cable.h2d[0].isk", "cable.h2d[0].data", "cable.h2d[1].isk", "cable.h2d[1].data",
    "cable.d2h[0].isk", "cable.d2h[0].data", "cable.d2h[1].isk", "cable.d2h[1].data"};
static_assert(LinkRtlPair::kWireDelay == 2, "kRingNames lists a 2-dword cable");

LinkRtlPair::StateField g_ring_info[kRingFields];

void resolve_fields() {
    static bool done = false;
    if (done)
        return;
    for (FieldAccess &f : g_fields) {
        if (!f.isk_name)
            continue;
        for (size_t j = 0; j < kRegFields; ++j)
            if (std::strcmp(g_fields[j].info.name, f.isk_name) == 0)
                f.info.isk = int(j);
        if (f.info.isk < 0)
            throw std::logic_error(std::string("link state: no field ") + f.isk_name);
    }
    for (size_t i = 0; i < kRingFields; ++i)
        g_ring_info[i] = {kRingNames[i], i % 2 == 1, i % 2 == 1 ? int(kRegFields + i - 1) : -1};
    done = true;
}

} // namespace

const LinkRtlPair::StateField &LinkRtlPair::state_field(size_t i) {
    resolve_fields();
    return i < kRegFields ? g_fields[i].info : g_ring_info[i - kRegFields];
}

LinkRtlPair::State LinkRtlPair::capture() const {
    State s;
    const Root &r = *m_->rootp;
    size_t k = 0;
#define SATASIM_GET(expr, data, isk) s.v[k++] = uint32_t(r.expr);
    SATASIM_LINK_FIELDS(SATASIM_GET)
#undef SATASIM_GET
    for (unsigned dir = 0; dir < 2; ++dir)
        for (unsigned age = 0; age < kWireDelay; ++age) {
            const unsigned slot = (wire_pos_ + age) % kWireDelay;
            s.v[k++] = wire_isk_[dir][slot];
            s.v[k++] = wire_data_[dir][slot];
        }
    return s;
}

void LinkRtlPair::restore(const State &s) {
    Root &r = *m_->rootp;
    size_t k = 0;
#define SATASIM_SET(expr, data, isk) r.expr = static_cast<decltype(r.expr)>(s.v[k++]);
    SATASIM_LINK_FIELDS(SATASIM_SET)
#undef SATASIM_SET
    for (unsigned dir = 0; dir < 2; ++dir)
        for (unsigned age = 0; age < kWireDelay; ++age) {
            const unsigned slot = (wire_pos_ + age) % kWireDelay;
            wire_isk_[dir][slot] = s.v[k++] != 0;
            wire_data_[dir][slot] = s.v[k++];
        }
}

void LinkRtlPair::advance_untick(uint64_t n) {
    cycles_ += n;
    wire_pos_ = unsigned((wire_pos_ + n) % kWireDelay);
}

void LinkRtlPair::rewind_untick(uint64_t n) {
    cycles_ -= n;
    wire_pos_ = unsigned((wire_pos_ + kWireDelay - n % kWireDelay) % kWireDelay);
}

uint16_t LinkRtlPair::lfsr_step(uint16_t s, uint32_t *word) const {
    const Root &r = *m_->rootp;
    const uint64_t next = r.sata_link_pair__DOT__host__DOT__lfsr_rom0[s & 0xFFu] ^
                          r.sata_link_pair__DOT__host__DOT__lfsr_rom1[s >> 8];
    if (word)
        *word = uint32_t(next);
    return uint16_t(next >> 32);
}

namespace {
// Loads dword i of n held as little-endian bytes (a FIS's, fis.h).
struct LeBytes {
    const uint8_t *b;
    uint32_t operator()(size_t i) const {
        uint32_t v;
        std::memcpy(&v, b + 4 * i, 4);
        if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
            v = __builtin_bswap32(v);
        return v;
    }
};
} // namespace

template <class Load> uint32_t LinkRtlPair::crc_of(Load load, size_t n) const {
    // The CRC step f(c, d) = T(c ^ d) is linear, with T the XOR of one ROM word per byte
    // (sata_link.v). Four steps: c4 = T^4(c ^ d0) ^ T^3(d1) ^ T^2(d2) ^ T(d3), each T^k a
    // byte-sliced table built from the RTL's ROM, so the serial chain is one table step per
    // four dwords instead of four.
    const Root &r = *m_->rootp;
    static thread_local std::array<std::array<std::array<uint32_t, 256>, 4>, 4> pow; // [k-1][byte]
    static thread_local bool built = false;
    auto t1 = [&](uint32_t x) {
        return r.sata_link_pair__DOT__host__DOT__crc_rom0[x & 0xFFu] ^
               r.sata_link_pair__DOT__host__DOT__crc_rom1[(x >> 8) & 0xFFu] ^
               r.sata_link_pair__DOT__host__DOT__crc_rom2[(x >> 16) & 0xFFu] ^
               r.sata_link_pair__DOT__host__DOT__crc_rom3[x >> 24];
    };
    if (!built) {
        for (unsigned b = 0; b < 4; ++b)
            for (uint32_t v = 0; v < 256; ++v) {
                uint32_t x = v << (8 * b);
                for (unsigned k = 0; k < 4; ++k) {
                    x = t1(x);
                    pow[k][b][v] = x;
                }
            }
        built = true;
    }
    auto tk = [&](unsigned k, uint32_t x) {
        const auto &t = pow[k - 1];
        return t[0][x & 0xFFu] ^ t[1][(x >> 8) & 0xFFu] ^ t[2][(x >> 16) & 0xFFu] ^ t[3][x >> 24];
    };
    uint32_t c = kCrcInit;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        c = tk(4, c ^ load(i)) ^ tk(3, load(i + 1)) ^ tk(2, load(i + 2)) ^ tk(1, load(i + 3));
    for (; i < n; ++i)
        c = t1(c ^ load(i));
    return c;
}

uint32_t LinkRtlPair::crc(const uint32_t *dwords, size_t n) const {
    return crc_of([dwords](size_t i) { return dwords[i]; }, n);
}

uint32_t LinkRtlPair::crc_of_bytes(const uint8_t *bytes, size_t n) const {
    return crc_of(LeBytes{bytes}, n);
}

} // namespace satasim::link

#undef SATASIM_LINK_FIELDS
#undef SATASIM_SIDE
#undef SATASIM_CTL
