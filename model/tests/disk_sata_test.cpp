// SataDisk through a real SataLink, driven by a small scripted host endpoint that plays the
// HBA's part of each protocol (docs/hardware.md 8.7).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "model/tests/model_test.h"
#include "model/tests/scripted_host.h"
#include "model/device/write_cache.h"

using namespace satasim;
using namespace satasim::device;
using link::Gen;
using link::SataLink;
using sata::Fis;
using sata::FisType;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::SC_MS;
using sc_core::SC_US;
using Bytes = std::vector<uint8_t>;

namespace {

// A drive named `name` on link <name>_link; the host waits up to 2 s for each answer.
struct Bench : test::ScriptedHostBench {
    Bench(const char *name, const DiskConfig &cfg)
        : ScriptedHostBench((std::string(name) + "_link").c_str(), name, cfg,
                            sc_time(2, sc_core::SC_SEC)) {}
};

std::map<std::string, Bench *> benches;
Bench &B(const char *n) { return *benches.at(n); }

Bytes pattern(size_t n, uint32_t seed) {
    Bytes b(n);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        b[i] = uint8_t(x >> 16);
    }
    return b;
}

bool is_signature(const Fis &f) {
    Taskfile t = sata::parse_taskfile(f);
    return f.type() == FisType::RegD2H && t.command == 0x50 && t.feature == 0x01 &&
           t.count == 1 && t.lba == 1;
}

// COMRESET (1 ms held) and the signature. Returns the signature's arrival time.
std::optional<sc_time> comreset(Bench &b) {
    sc_time t0 = sc_core::sc_time_stamp();
    auto f = b.comreset();
    if (!f || !is_signature(*f))
        return std::nullopt;
    return sc_core::sc_time_stamp() - t0;
}

Taskfile cmd(uint8_t c, uint64_t lba = 0, uint16_t count = 0, uint8_t feature = 0) {
    Taskfile t;
    t.command = c;
    t.lba = lba;
    t.count = count;
    t.feature = feature;
    t.device = 0x40;
    return t;
}

struct Result {
    bool done = false;
    uint8_t status = 0, error = 0;
    Taskfile d2h;
    bool d2h_irq = false;
    Bytes data;
    std::vector<size_t> data_fis_sizes;
    std::vector<Fis> pio_setups;
    unsigned activates = 0;
};

// Host side of one non-queued command, AHCI-like.
Result run(Bench &b, const Taskfile &tf, const Bytes &out = {}) {
    Result r;
    size_t sent = 0;
    b.host.send(sata::make_reg_h2d(tf, true));
    bool pio_in_last = false;
    for (;;) {
        auto f = b.host.next();
        if (!f)
            return r;
        switch (f->type()) {
        case FisType::PioSetup: {
            r.pio_setups.push_back(*f);
            uint16_t xfer = uint16_t(f->at(16) | f->at(17) << 8);
            if (f->at(1) & sata::kFisDirD2H) {
                pio_in_last = !(f->at(15) & sata::kAtaBsy);
                r.status = f->at(15);
            } else {
                size_t n = std::min<size_t>(xfer, out.size() - std::min(out.size(), sent));
                b.host.send(sata::make_data(out.data() + sent, n));
                sent += n;
            }
            break;
        }
        case FisType::Data:
            r.data.insert(r.data.end(), f->payload(), f->payload() + f->payload_size());
            r.data_fis_sizes.push_back(f->payload_size());
            if (pio_in_last) {
                r.done = true;
                return r;
            }
            break;
        case FisType::DmaActivate: {
            ++r.activates;
            size_t n = std::min<size_t>(8192, out.size() - sent);
            b.host.send(sata::make_data(out.data() + sent, n));
            sent += n;
            break;
        }
        case FisType::RegD2H:
            r.d2h = sata::parse_taskfile(*f);
            r.status = r.d2h.command;
            r.error = r.d2h.feature;
            r.d2h_irq = f->at(1) & sata::kFisInterrupt;
            r.done = true;
            return r;
        default:
            break;
        }
    }
}

uint16_t word(const Bytes &d, size_t i) { return uint16_t(d.at(2 * i) | d.at(2 * i + 1) << 8); }

// ---- NCQ host side
struct Ncq {
    Bench &b;
    std::map<int, Bytes> wdata, rdata;
    std::map<int, uint32_t> rsize;
    std::vector<uint32_t> sdbs;
    std::vector<int> order;
    uint32_t done = 0;
    int cur = -1;
    bool cur_write = false;
    size_t cur_off = 0, cur_left = 0;
    unsigned accepts = 0, activates = 0;
    std::vector<Taskfile> errors; // D2H with ERR
    std::vector<Fis> error_sdbs;
    explicit Ncq(Bench &bb) : b(bb) {}

    void send_chunk() {
        size_t n = std::min<size_t>(8192, cur_left);
        const Bytes &src = wdata[cur];
        b.host.send(sata::make_data(src.data() + cur_off, n));
        cur_off += n;
        cur_left -= n;
    }
    bool pump(sc_time timeout = sc_time(2, sc_core::SC_SEC)) {
        auto f = b.host.next(timeout);
        if (!f)
            return false;
        switch (f->type()) {
        case FisType::RegD2H: {
            Taskfile t = sata::parse_taskfile(*f);
            if (t.command & sata::kAtaErr)
                errors.push_back(t);
            else if (t.command == 0x40)
                ++accepts;
            break;
        }
        case FisType::DmaSetup:
            cur = int(f->dword(1) & 0x1F);
            cur_write = !(f->at(1) & sata::kFisDirD2H);
            cur_off = f->dword(4);
            cur_left = f->dword(5);
            if (cur_write && (f->at(1) & sata::kFisCommand))
                send_chunk();
            break;
        case FisType::DmaActivate:
            ++activates;
            send_chunk();
            break;
        case FisType::Data: {
            Bytes &dst = rdata[cur];
            dst.insert(dst.end(), f->payload(), f->payload() + f->payload_size());
            break;
        }
        case FisType::SetDeviceBits: {
            uint32_t m = f->dword(1);
            if (f->at(2) & sata::kAtaErr)
                error_sdbs.push_back(*f);
            sdbs.push_back(m);
            for (int t = 0; t < 32; ++t)
                if (m & (1u << t))
                    order.push_back(t);
            done |= m;
            break;
        }
        default:
            break;
        }
        return true;
    }
    // Issue one FPDMA command and wait for its acceptance (or an error D2H).
    bool issue(int tag, bool write, uint64_t lba, uint32_t sectors) {
        Taskfile t = cmd(write ? 0x61 : 0x60, lba, uint16_t(tag << 3), uint8_t(sectors));
        t.feature_hi = uint8_t(sectors >> 8);
        unsigned a = accepts;
        size_t e = errors.size();
        b.host.send(sata::make_reg_h2d(t, true));
        while (accepts == a && errors.size() == e)
            if (!pump())
                return false;
        return accepts > a;
    }
    // SEND FPDMA QUEUED (64h) DSM: Features the blocks, Count 12:8 (high byte) the
    // subcommand, Auxiliary bit 0 TRIM; wdata[tag] is the range list.
    bool issue_trim(int tag, uint16_t blocks, uint8_t subcommand = 0, uint32_t aux = 1) {
        Taskfile t = cmd(0x64, 0, uint16_t(tag << 3 | subcommand << 8), uint8_t(blocks));
        t.aux = aux;
        unsigned a = accepts;
        size_t e = errors.size();
        b.host.send(sata::make_reg_h2d(t, true));
        while (accepts == a && errors.size() == e)
            if (!pump())
                return false;
        return accepts > a;
    }
    bool wait_done(uint32_t mask) {
        while ((done & mask) != mask && error_sdbs.empty())
            if (!pump())
                return false;
        return (done & mask) == mask;
    }
};

} // namespace

// ------------------------------------------------------------------ tests

MODEL_TEST(signature_after_comreset) {
    Bench &b = B("hdd");
    // Power-on: nothing happens until the host's COMRESET.
    sc_core::wait(5, SC_MS);
    EXPECT_EQ(b.link.sstatus(), 1u);
    EXPECT_TRUE(b.host.q.empty());
    auto t = comreset(b);
    EXPECT_TRUE(t.has_value());
    // Not before reset_ready_ms (2 ms) from the COMRESET, soon after it.
    EXPECT_TRUE(t && *t >= sc_time(2, SC_MS) && *t < sc_time(2.1, SC_MS));
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.tr.count("disk.reset") >= 1);
    EXPECT_TRUE(b.tr.count("link.up") == 1);
    // Every other bench comes up the same way.
    for (const char *n : {"rev", "rnd1", "rnd2", "rnd3", "small", "ssd"})
        EXPECT_TRUE(comreset(B(n)).has_value());
}

MODEL_TEST(srst_gives_signature) {
    Bench &b = B("hdd");
    Taskfile ctl;
    ctl.control = 0x08 | sata::kAtaSrst;
    b.host.send(sata::make_reg_h2d(ctl, false));
    sc_core::wait(5, SC_US);
    ctl.control = 0x08;
    sc_time t0 = sc_core::sc_time_stamp();
    b.host.send(sata::make_reg_h2d(ctl, false));
    auto f = b.host.next(sc_time(10, SC_MS));
    EXPECT_TRUE(f && is_signature(*f));
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 >= sc_time(2, SC_MS));
    EXPECT_TRUE(f && !(f->at(1) & sata::kFisInterrupt));
    // EXECUTE DEVICE DIAGNOSTIC returns the signature too (with I=1).
    Result r = run(b, cmd(0x90));
    EXPECT_TRUE(r.done && r.status == 0x50 && r.error == 0x01 && r.d2h.lba == 1 && r.d2h.count == 1);
    EXPECT_TRUE(r.d2h_irq);
}

MODEL_TEST(identify_words_and_checksum) {
    Bench &b = B("hdd");
    Result r = run(b, cmd(0xEC));
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.data.size(), 512u);
    EXPECT_EQ(r.pio_setups.size(), 1u);
    if (r.data.size() != 512 || r.pio_setups.empty())
        return;
    const Fis &ps = r.pio_setups[0];
    EXPECT_EQ(ps.at(1), 0x60);   // D, I
    EXPECT_EQ(ps.at(2), 0x58);
    EXPECT_EQ(ps.at(15), 0x50);  // E_Status
    EXPECT_EQ(ps.at(16) | ps.at(17) << 8, 512);
    // Strings: first character in the high byte.
    EXPECT_EQ(word(r.data, 27), uint16_t('S' << 8 | 'A'));
    EXPECT_EQ(word(r.data, 28), uint16_t('T' << 8 | 'A'));
    EXPECT_EQ(word(r.data, 10), uint16_t('S' << 8 | 'I'));
    EXPECT_EQ(word(r.data, 19), uint16_t(' ' << 8 | ' '));
    EXPECT_EQ(word(r.data, 23), uint16_t('S' << 8 | 'I'));
    EXPECT_EQ(word(r.data, 0), 0x0040);
    EXPECT_EQ(word(r.data, 47), 0x8010);
    EXPECT_EQ(word(r.data, 49) & 0x0300, 0x0300);
    EXPECT_EQ(word(r.data, 53), 0x0007);
    EXPECT_EQ(word(r.data, 59), 0x0000);
    EXPECT_EQ(word(r.data, 60), 0xFFFF);
    EXPECT_EQ(word(r.data, 61), 0x0FFF);
    EXPECT_EQ(word(r.data, 63) & 0x7, 0x7);
    EXPECT_EQ(word(r.data, 64), 0x0003);
    EXPECT_EQ(word(r.data, 75), 31);
    EXPECT_EQ(word(r.data, 76), 0x010E);
    EXPECT_EQ(word(r.data, 77), 0x0006);  // Gen3 negotiated
    EXPECT_EQ(word(r.data, 80), 0x01F0);
    EXPECT_EQ(word(r.data, 82) & 0x0020, 0x0020);
    EXPECT_EQ(word(r.data, 83), 0x7400);  // valid, FLUSH EXT, FLUSH, LBA48
    EXPECT_EQ(word(r.data, 84) & 0xC020, 0x4020);
    EXPECT_EQ(word(r.data, 85) & 0x0020, 0x0020);
    EXPECT_EQ(word(r.data, 86) & 0x3400, 0x3400);
    EXPECT_EQ(word(r.data, 87) & 0xC000, 0x4000);
    EXPECT_EQ(word(r.data, 88), 0x407F);  // UDMA 0-6 supported, 6 selected
    EXPECT_EQ(word(r.data, 93), 0);
    uint64_t cap = uint64_t(word(r.data, 100)) | uint64_t(word(r.data, 101)) << 16 |
                   uint64_t(word(r.data, 102)) << 32 | uint64_t(word(r.data, 103)) << 48;
    EXPECT_EQ(cap, 1953525168ull);
    EXPECT_EQ(word(r.data, 106), 0x4000);
    EXPECT_EQ(word(r.data, 217), 7200);
    EXPECT_EQ(word(r.data, 255) & 0xFF, 0xA5);
    unsigned sum = 0;
    for (uint8_t x : r.data)
        sum += x;
    EXPECT_EQ(sum & 0xFF, 0u);
    std::vector<uint16_t> w = b.disk.identify_words();
    for (size_t i = 0; i < 256; ++i)
        if (w[i] != word(r.data, i)) {
            EXPECT_EQ(i, 9999u);
            break;
        }
    // SSD and LBA28-only variants.
    std::vector<uint16_t> s = B("ssd").disk.identify_words();
    EXPECT_EQ(s[217], 1);
    std::vector<uint16_t> sm = B("small").disk.identify_words();
    EXPECT_EQ(sm[83] & 0x0400, 0);
    EXPECT_EQ(sm[60] | sm[61] << 16, 5000);
    EXPECT_EQ(sm[100], 0);
    EXPECT_EQ(sm[75], 7);   // depth 8
    EXPECT_EQ(sm[76], 0x0102); // Gen1 only
}

MODEL_TEST(set_features_modes) {
    Bench &b = B("hdd");
    Result r = run(b, cmd(0xEF, 0, 0x45, 0x03)); // UDMA5
    EXPECT_TRUE(r.done && r.status == 0x50 && r.d2h_irq);
    EXPECT_EQ(b.disk.identify_words()[88], 0x207F);
    r = run(b, cmd(0xEF, 0, 0x47, 0x03)); // UDMA7: not supported
    EXPECT_TRUE(r.done && r.status == 0x51 && r.error == 0x04);
    EXPECT_EQ(b.disk.identify_words()[88], 0x207F);
    r = run(b, cmd(0xEF, 0, 0x22, 0x03)); // MWDMA2
    EXPECT_EQ(r.status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[63], 0x0407);
    EXPECT_EQ(b.disk.identify_words()[88], 0x007F);
    r = run(b, cmd(0xEF, 0, 0x0C, 0x03)); // PIO4
    EXPECT_EQ(r.status, 0x50);
    r = run(b, cmd(0xEF, 0, 0x12, 0x03)); // SWDMA2: not supported
    EXPECT_EQ(r.status, 0x51);
    r = run(b, cmd(0xEF, 0, 0x46, 0x03)); // back to UDMA6
    EXPECT_EQ(b.disk.identify_words()[88], 0x407F);
    r = run(b, cmd(0xEF, 0, 0, 0x82));    // write cache off
    EXPECT_EQ(r.status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[85] & 0x20, 0);
    r = run(b, cmd(0xEF, 0, 0, 0x02));
    EXPECT_EQ(b.disk.identify_words()[85] & 0x20, 0x20);
    r = run(b, cmd(0xEF, 0, 0, 0x99));    // unknown subcommand
    EXPECT_TRUE(r.status == 0x51 && r.error == 0x04);
}

// A drive whose highest PIO mode is below PIO3 (devices[].pio 0..2): word 51 names it, word 53
// bit 1 is clear (words 64-70 would imply PIO0-2 to a host, libata's ata_id_xfermask), and
// SET FEATURES accepts its modes only (dmesg corpus 56: "configured for PIO0"). Before: word
// 51 said PIO2 and bit 1 was set whatever the mode, so libata asked a PIO0 drive for PIO2 and
// the drive refused it ("failed to set xfermode (err_mask=0x1)", the device disabled).
MODEL_TEST(identify_pio_modes_below_pio3) {
    Bench &p = B("pio0");
    EXPECT_TRUE(comreset(p).has_value());
    std::vector<uint16_t> w = p.disk.identify_words();
    EXPECT_EQ(w[51], 0x0000);
    EXPECT_EQ(w[53] & 0x0002, 0);
    EXPECT_EQ(w[64], 0);
    EXPECT_EQ(run(p, cmd(0xEF, 0, 0x08, 0x03)).status, 0x50); // PIO0
    EXPECT_EQ(run(p, cmd(0xEF, 0, 0x0A, 0x03)).status, 0x51); // PIO2: above its mode
    std::vector<uint16_t> h = B("hdd").disk.identify_words();   // PIO4
    EXPECT_EQ(h[51], 0x0200);
    EXPECT_EQ(h[53], 0x0007);
    EXPECT_EQ(h[64], 0x0003);
}

MODEL_TEST(dma_write_then_read) {
    Bench &b = B("hdd");
    Bytes data = pattern(100 * 512, 1);
    Result w = run(b, cmd(0x35, 1000, 100), data);
    EXPECT_TRUE(w.done && w.status == 0x50 && w.error == 0 && w.d2h_irq);
    EXPECT_EQ(w.activates, 7u);
    Result r = run(b, cmd(0x25, 1000, 100));
    EXPECT_TRUE(r.done && r.status == 0x50);
    EXPECT_EQ(r.data_fis_sizes.size(), 7u);
    EXPECT_TRUE(std::all_of(r.data_fis_sizes.begin(), r.data_fis_sizes.end(),
                            [](size_t s) { return s <= 8192; }));
    EXPECT_TRUE(r.data == data);
    // LBA28 READ DMA of part of it (LBA 27:24 in the device register).
    Result r28 = run(b, cmd(0xC8, 1010, 5));
    EXPECT_TRUE(r28.done && r28.status == 0x50);
    EXPECT_TRUE(r28.data == Bytes(data.begin() + 10 * 512, data.begin() + 15 * 512));
    // Unwritten sectors read as the blank pattern of their LBA and the media seed
    // (media_store.h): the LBA, "UNWRITTN", the seed, then the whitened sequence.
    Result z = run(b, cmd(0x25, 5000000, 2));
    Bytes want(1024);
    device::MediaStore::blank_sector(want.data(), 5000000, b.disk.media().seed());
    device::MediaStore::blank_sector(want.data() + 512, 5000001, b.disk.media().seed());
    EXPECT_TRUE(z.data == want);
    EXPECT_EQ(z.data[0], uint8_t(5000000 & 0xFF));
    EXPECT_TRUE(std::memcmp(z.data.data() + 8, "UNWRITTN", 8) == 0);
    EXPECT_TRUE(std::memcmp(z.data.data() + 24, z.data.data() + 512 + 24, 488) != 0);
    EXPECT_TRUE(b.disk.media().sectors_stored() >= 100u);
}

MODEL_TEST(crc_error_on_write_data_ends_with_icrc_abrt) {
    Bench &b = B("hdd");
    Bytes old = pattern(16 * 512, 7);
    EXPECT_TRUE(run(b, cmd(0x35, 9000, 16), old).status == 0x50);
    b.link.inject_dword_fault(link::SataLink::DwordFault::data_fis(true, 3, 0x80000000u));
    Result w = run(b, cmd(0x35, 9000, 16), pattern(16 * 512, 8));
    b.link.clear_faults();
    EXPECT_TRUE(w.done);
    EXPECT_EQ(w.status, 0x51);
    EXPECT_EQ(w.error, 0x84); // ICRC | ABRT
    // The drive kept nothing of the frame that failed its CRC.
    Result r = run(b, cmd(0x25, 9000, 16));
    EXPECT_TRUE(r.data == old);
}

// The same on a read: the host answers a Data FIS with a bad CRC with R_ERR, and the drive
// ends the command with ICRC|ABRT (its Register FIS 51/84, as the READ DMA EXT of dmesg corpus
// 52 reports it behind a SiI3726). Before: the drive dropped the command silently and the
// host timed out.
MODEL_TEST(crc_error_on_read_data_ends_with_icrc_abrt) {
    Bench &b = B("hdd");
    b.link.inject_dword_fault(link::SataLink::DwordFault::data_fis(false, 3, 0x80000000u));
    Result r = run(b, cmd(0x25, 9000, 16));
    b.link.clear_faults();
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.status, 0x51);
    EXPECT_EQ(r.error, 0x84); // ICRC | ABRT
    Result again = run(b, cmd(0x25, 9000, 16));
    EXPECT_TRUE(again.done && again.status == 0x50);
}

MODEL_TEST(pio_read_write_and_multiple) {
    Bench &b = B("hdd");
    Result r = run(b, cmd(0xC4, 0, 4)); // READ MULTIPLE with no multiple set
    EXPECT_TRUE(r.status == 0x51 && r.error == 0x04);
    EXPECT_EQ(run(b, cmd(0xC6, 0, 3)).status, 0x51);  // not a power of two
    EXPECT_EQ(run(b, cmd(0xC6, 0, 32)).status, 0x51); // above multi_max
    EXPECT_EQ(run(b, cmd(0xC6, 0, 8)).status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[59], 0x0108);
    Bytes data = pattern(20 * 512, 2);
    Result w = run(b, cmd(0x39, 3000, 20), data); // WRITE MULTIPLE EXT
    EXPECT_TRUE(w.done && w.status == 0x50 && w.d2h_irq);
    EXPECT_EQ(w.pio_setups.size(), 3u);
    if (w.pio_setups.size() == 3) {
        EXPECT_EQ(w.pio_setups[0].at(1), 0x00); // D=0, first block without I
        EXPECT_EQ(w.pio_setups[1].at(1), 0x40);
        EXPECT_EQ(w.pio_setups[2].at(16) | w.pio_setups[2].at(17) << 8, 2048);
    }
    Result m = run(b, cmd(0x29, 3000, 20)); // READ MULTIPLE EXT
    EXPECT_TRUE(m.done);
    EXPECT_EQ(m.pio_setups.size(), 3u);
    if (m.pio_setups.size() == 3) {
        EXPECT_EQ(m.pio_setups[0].at(16) | m.pio_setups[0].at(17) << 8, 4096);
        EXPECT_EQ(m.pio_setups[0].at(15), 0xD0);
        EXPECT_EQ(m.pio_setups[2].at(15), 0x50);
        EXPECT_EQ(m.pio_setups[2].at(16) | m.pio_setups[2].at(17) << 8, 2048);
    }
    EXPECT_TRUE(m.data == data);
    // READ SECTORS: one sector per DRQ block; WRITE SECTORS likewise.
    Result s = run(b, cmd(0x20, 3001, 3));
    EXPECT_EQ(s.pio_setups.size(), 3u);
    EXPECT_TRUE(s.data == Bytes(data.begin() + 512, data.begin() + 4 * 512));
    Bytes d2 = pattern(2 * 512, 3);
    Result ws = run(b, cmd(0x30, 3005, 2), d2);
    EXPECT_TRUE(ws.status == 0x50 && ws.pio_setups.size() == 2);
    Result rb = run(b, cmd(0x24, 3004, 4));
    EXPECT_TRUE(rb.data == [&] {
        Bytes x(data.begin() + 4 * 512, data.begin() + 5 * 512);
        x.insert(x.end(), d2.begin(), d2.end());
        x.insert(x.end(), data.begin() + 7 * 512, data.begin() + 8 * 512);
        return x;
    }());
}

MODEL_TEST(dma_65535_and_65536_sectors) {
    Bench &b = B("hdd");
    Bytes tail = pattern(512, 9);
    EXPECT_EQ(run(b, cmd(0x35, 100000 + 65534, 1), tail).status, 0x50);
    Result r = run(b, cmd(0x25, 100000, 65535));
    EXPECT_TRUE(r.done && r.status == 0x50);
    EXPECT_EQ(r.data_fis_sizes.size(), 4096u);
    EXPECT_EQ(r.data.size(), 65535u * 512u);
    EXPECT_EQ(r.data_fis_sizes.back(), 7680u);
    EXPECT_TRUE(r.data.size() == 65535u * 512u &&
                std::equal(tail.begin(), tail.end(), r.data.end() - 512));
    // Count 0 in an EXT command means 65536 sectors.
    Result r0 = run(b, cmd(0x25, 100000, 0));
    EXPECT_EQ(r0.data.size(), 65536u * 512u);
    EXPECT_EQ(r0.data_fis_sizes.size(), 4096u);
    // A 65535-sector DMA write as well.
    Bytes big = pattern(65535u * 512u, 4);
    Result w = run(b, cmd(0x35, 300000, 65535), big);
    EXPECT_TRUE(w.status == 0x50 && w.activates == 4096);
    Result rr = run(b, cmd(0x25, 300000, 65535));
    EXPECT_TRUE(rr.data == big);
}

namespace {
// Writes 32 x 8 sectors with NCQ, reads them back with NCQ; returns the read completion order.
std::vector<int> ncq_roundtrip(Bench &b, uint64_t base, uint32_t seed, std::vector<uint32_t> *wsdbs) {
    Ncq w(b);
    for (int t = 0; t < 32; ++t)
        w.wdata[t] = pattern(8 * 512, seed + t);
    for (int t = 0; t < 32; ++t)
        EXPECT_TRUE(w.issue(t, true, base + uint64_t(t) * 4096, 8));
    EXPECT_TRUE(w.wait_done(0xFFFFFFFFu));
    if (wsdbs)
        *wsdbs = w.sdbs;
    Ncq r(b);
    for (int t = 0; t < 32; ++t)
        EXPECT_TRUE(r.issue(t, false, base + uint64_t(t) * 4096, 8));
    EXPECT_TRUE(r.wait_done(0xFFFFFFFFu));
    EXPECT_EQ(r.order.size(), 32u);
    for (int t = 0; t < 32; ++t)
        EXPECT_TRUE(r.rdata[t] == w.wdata[t]);
    EXPECT_TRUE(r.errors.empty() && r.error_sdbs.empty() && w.errors.empty());
    return r.order;
}
bool ascending(const std::vector<int> &v) { return std::is_sorted(v.begin(), v.end()); }
} // namespace

MODEL_TEST(ncq_in_order) {
    std::vector<uint32_t> wsdbs;
    std::vector<int> o = ncq_roundtrip(B("hdd"), 2000000, 100, &wsdbs);
    EXPECT_TRUE(ascending(o));
    // Cached writes finish back to back: some SDB reports several tags at once.
    EXPECT_TRUE(std::any_of(wsdbs.begin(), wsdbs.end(),
                            [](uint32_t m) { return __builtin_popcount(m) > 1; }));
}

MODEL_TEST(ncq_reverse_order) {
    std::vector<int> o = ncq_roundtrip(B("rev"), 1000, 200, nullptr);
    // Tag 0 starts alone; then the most recently queued first.
    std::vector<int> want = {0};
    for (int t = 31; t >= 1; --t)
        want.push_back(t);
    EXPECT_TRUE(o == want);
}

MODEL_TEST(ncq_random_order_seeded) {
    std::vector<int> a = ncq_roundtrip(B("rnd1"), 50000, 300, nullptr);
    std::vector<int> a2 = ncq_roundtrip(B("rnd2"), 50000, 300, nullptr);
    std::vector<int> c = ncq_roundtrip(B("rnd3"), 50000, 300, nullptr);
    EXPECT_TRUE(!ascending(a));
    EXPECT_TRUE(a == a2); // same seed, same order
    EXPECT_TRUE(a != c);  // other seed, other order
    std::vector<int> s = a;
    std::sort(s.begin(), s.end());
    EXPECT_EQ(s.size(), 32u);
    EXPECT_TRUE(std::adjacent_find(s.begin(), s.end()) == s.end());
}

MODEL_TEST(ncq_shortest_seek_order) {
    Bench &b = B("sstf");
    EXPECT_TRUE(comreset(b).has_value());
    Ncq n(b);
    const uint64_t lbas[] = {500000, 100, 900000, 510000, 2000000, 480000};
    for (int t = 0; t < 6; ++t)
        EXPECT_TRUE(n.issue(t, false, lbas[t], 8));
    EXPECT_TRUE(n.wait_done(0x3F));
    // Tag 0 starts alone; then always the nearest LBA to where the heads are.
    EXPECT_TRUE(n.order == (std::vector<int>{0, 3, 5, 2, 1, 4}));
}

MODEL_TEST(ncq_auto_activate_and_fis_trace) {
    Bench &b = B("rev");
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0x02, 0x10)).status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[79] & 0x0004, 0x0004);
    b.disk.set_fis_trace(true);
    Ncq n(b);
    n.wdata[7] = pattern(24 * 512, 5);
    EXPECT_TRUE(n.issue(7, true, 4242, 24));
    EXPECT_TRUE(n.wait_done(1u << 7));
    EXPECT_EQ(n.activates, 1u); // 2 Data FISes, the first one auto-activated
    EXPECT_TRUE(b.tr.count("disk.fis_tx") > 0 && b.tr.count("disk.fis_rx") > 0);
    b.disk.set_fis_trace(false);
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0x02, 0x90)).status, 0x50);
    Ncq r(b);
    EXPECT_TRUE(r.issue(8, false, 4242, 24));
    EXPECT_TRUE(r.wait_done(1u << 8));
    EXPECT_TRUE(r.rdata[8] == n.wdata[7]);
    Ncq w2(b);
    w2.wdata[9] = pattern(24 * 512, 6);
    EXPECT_TRUE(w2.issue(9, true, 5000, 24));
    EXPECT_TRUE(w2.wait_done(1u << 9));
    EXPECT_EQ(w2.activates, 2u);
}

MODEL_TEST(ncq_duplicate_tag_error_and_log) {
    Bench &b = B("hdd");
    Ncq n(b);
    for (int t = 0; t < 4; ++t)
        EXPECT_TRUE(n.issue(t, false, 7000000 + uint64_t(t) * 100000, 8));
    // Tag 2 again: an NCQ error. D2H with ERR/ABRT, everything outstanding aborted.
    EXPECT_TRUE(!n.issue(2, false, 0x123456789Aull, 16));
    EXPECT_EQ(n.errors.size(), 1u);
    if (!n.errors.empty())
        EXPECT_TRUE(n.errors[0].command == 0x51 && n.errors[0].feature == 0x04);
    sc_core::wait(100, SC_MS);
    while (n.pump(sc_time(1, SC_MS))) {
    }
    EXPECT_EQ(n.done & 0xF, 0u); // no completions for aborted commands
    EXPECT_TRUE(b.tr.count("disk.ncq_error") >= 1);
    // Queued commands are refused until log 10h is read.
    EXPECT_TRUE(!n.issue(5, false, 0, 8));
    EXPECT_EQ(n.errors.size(), 2u);
    Result log = run(b, cmd(0x2F, 0x10, 1));
    EXPECT_TRUE(log.done && log.data.size() == 512);
    if (log.data.size() == 512) {
        EXPECT_EQ(log.data[0], 0x02); // NQ=0, tag 2
        EXPECT_EQ(log.data[2], 0x51);
        EXPECT_EQ(log.data[3], 0x04);
        EXPECT_EQ(log.data[4], 0x9A);
        EXPECT_EQ(log.data[5], 0x78);
        EXPECT_EQ(log.data[6], 0x56);
        EXPECT_EQ(log.data[8], 0x34);
        EXPECT_EQ(log.data[9], 0x12);
        EXPECT_EQ(log.data[12], 2 << 3);
        unsigned sum = 0;
        for (uint8_t x : log.data)
            sum += x;
        EXPECT_EQ(sum & 0xFF, 0u);
    }
    // Cleared: queued commands work again.
    Ncq ok(b);
    EXPECT_TRUE(ok.issue(5, false, 0, 8));
    EXPECT_TRUE(ok.wait_done(1u << 5));
    // A non-queued command while queued ones are outstanding: NQ=1.
    Ncq m(b);
    EXPECT_TRUE(m.issue(1, false, 9000000, 8));
    Result nd = run(b, cmd(0xE7));
    EXPECT_TRUE(nd.status == 0x51 && nd.error == 0x04);
    Result log2 = run(b, cmd(0x2F, 0x10, 1));
    EXPECT_TRUE(log2.data.size() == 512 && (log2.data[0] & 0x80));
    // Log directory lists log 10h.
    Result dir = run(b, cmd(0x2F, 0x00, 1));
    EXPECT_TRUE(dir.data.size() == 512 && dir.data[0] == 1 && dir.data[0x20] == 1);
    EXPECT_EQ(run(b, cmd(0x2F, 0x10, 2)).status, 0x51); // beyond the log
}

MODEL_TEST(ncq_idnf_via_sdb) {
    Bench &b = B("ssd");
    Ncq n(b);
    EXPECT_TRUE(n.issue(3, false, 100, 8));
    EXPECT_TRUE(n.wait_done(1u << 3));
    EXPECT_TRUE(n.issue(4, false, 1000000 - 4, 8)); // crosses the end
    while (n.error_sdbs.empty() && n.pump()) {
    }
    EXPECT_EQ(n.error_sdbs.size(), 1u);
    if (!n.error_sdbs.empty()) {
        EXPECT_EQ(n.error_sdbs[0].at(2), 0x41);
        EXPECT_EQ(n.error_sdbs[0].at(3), 0x14);
        EXPECT_EQ(n.error_sdbs[0].at(1) & 0x40, 0x40);
        EXPECT_EQ(n.error_sdbs[0].dword(1) & (1u << 4), 0u);
    }
    Result log = run(b, cmd(0x2F, 0x10, 1));
    EXPECT_TRUE(log.data.size() == 512 && log.data[0] == 4 && log.data[3] == 0x14);
}

MODEL_TEST(idnf_beyond_capacity_and_abrt) {
    Bench &b = B("hdd");
    Result r = run(b, cmd(0x25, 1953525168ull - 1, 2));
    EXPECT_TRUE(r.status == 0x51 && r.error == 0x14 && r.d2h_irq);
    EXPECT_EQ(r.d2h.lba, 1953525168ull);
    EXPECT_EQ(r.data.size(), 0u);
    EXPECT_EQ(run(b, cmd(0x25, 1953525168ull - 2, 2)).status, 0x50);
    // LBA28 command reaching past 0FFFFFFFh sectors.
    Taskfile t = cmd(0xC8, 0xFFFFFE, 2);
    t.device = 0x4F;
    EXPECT_EQ(run(b, t).error, 0x14);
    // Unknown opcode.
    Result u = run(b, cmd(0x77));
    EXPECT_TRUE(u.status == 0x51 && u.error == 0x04);
    EXPECT_TRUE(b.tr.count("disk.error") >= 2);
    // LBA28-only small drive: EXT commands abort, LBA28 beyond 5000 sectors is IDNF.
    Bench &s = B("small");
    EXPECT_EQ(run(s, cmd(0x25, 0, 1)).error, 0x04);
    EXPECT_EQ(run(s, cmd(0xC8, 4999, 2)).error, 0x14);
    EXPECT_EQ(run(s, cmd(0xC8, 4999, 1)).status, 0x50);
    Result nm = run(s, cmd(0xF8));
    EXPECT_TRUE(nm.status == 0x50 && nm.d2h.lba == 4999);
    Result nm48 = run(b, cmd(0x27));
    EXPECT_EQ(nm48.d2h.lba, 1953525168ull - 1);
}

MODEL_TEST(power_mode_flush_and_timing) {
    Bench &b = B("ssd");
    Result p = run(b, cmd(0xE5));
    EXPECT_TRUE(p.status == 0x50 && p.d2h.count == 0xFF);
    EXPECT_EQ(run(b, cmd(0xE0)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0xE5)).d2h.count, 0x00);
    EXPECT_EQ(run(b, cmd(0xEA)).status, 0x50);
    // SSD read: overhead 20 us + latency 60 us + 4 KiB at 180 MB/s + link frames.
    sc_time t0 = sc_core::sc_time_stamp();
    Result r = run(b, cmd(0x25, 777, 8));
    sc_time took = sc_core::sc_time_stamp() - t0;
    EXPECT_TRUE(r.status == 0x50);
    sc_time expect = sc_time(80, SC_US) + sc_time(4096 / 180e6, sc_core::SC_SEC) +
                     SataLink::frame_time(Gen::Gen3, 5) * 2.0 +
                     SataLink::frame_time(Gen::Gen3, 1025);
    EXPECT_TRUE(took >= expect && took < expect + sc_time(100, sc_core::SC_NS));
    EXPECT_EQ(run(b, cmd(0xE5)).d2h.count, 0xFF); // media access woke it
    // HDD: a far random read costs more than the sequential next one.
    Bench &h = B("hdd");
    run(h, cmd(0x25, 10, 8));
    t0 = sc_core::sc_time_stamp();
    run(h, cmd(0x25, 18, 8));
    sc_time seq = sc_core::sc_time_stamp() - t0;
    t0 = sc_core::sc_time_stamp();
    run(h, cmd(0x25, 1500000000, 8));
    sc_time far = sc_core::sc_time_stamp() - t0;
    EXPECT_TRUE(seq < sc_time(100, SC_US));
    EXPECT_TRUE(far > sc_time(10, SC_MS) && far < sc_time(30, SC_MS));
}

MODEL_TEST(media_survives_power_on_reset) {
    Bench &b = B("hdd");
    Bytes data = pattern(16 * 512, 77);
    EXPECT_EQ(run(b, cmd(0x35, 424242, 16), data).status, 0x50);
    EXPECT_EQ(run(b, cmd(0xC6, 0, 4)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0x42, 0x03)).status, 0x50);
    b.disk.power_on_reset();
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_EQ(b.disk.identify_words()[59], 0);
    EXPECT_EQ(b.disk.identify_words()[88], 0x407F);
    EXPECT_EQ(run(b, cmd(0xC4, 424242, 4)).status, 0x51); // multiple mode gone
    Result r = run(b, cmd(0x25, 424242, 16));
    EXPECT_TRUE(r.data == data);
    // COMRESET in the middle of a long transfer: aborted, signature, still consistent.
    b.host.send(sata::make_reg_h2d(cmd(0x25, 0, 0), true));
    sc_core::wait(15, SC_MS);
    EXPECT_TRUE(comreset(b).has_value());
    Result again = run(b, cmd(0x25, 424242, 16));
    EXPECT_TRUE(again.data == data);
}

// DATA SET MANAGEMENT with TRIM (docs/device.md 3): IDENTIFY words 169, 69 and 105 as
// DiskConfig::trim says; each 8-byte entry (48-bit LBA, 16-bit count) names sectors the drive
// forgets; an entry beyond the media aborts the command with nothing trimmed.
MODEL_TEST(trim_forgets_the_ranges_it_is_sent) {
    auto ranges = [](std::vector<std::pair<uint64_t, uint16_t>> rs, size_t blocks = 1) {
        Bytes b(blocks * 512, 0);
        for (size_t i = 0; i < rs.size(); ++i) {
            const uint64_t v = rs[i].first | uint64_t(rs[i].second) << 48;
            const size_t at = i * 8;
            for (int k = 0; k < 8; ++k)
                b[at + size_t(k)] = uint8_t(v >> (8 * k));
        }
        return b;
    };
    Bench &b = B("trim");
    Bench &d = B("trimdet");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_TRUE(comreset(d).has_value());
    std::vector<uint16_t> w = b.disk.identify_words();
    EXPECT_EQ(w[169], 0x0001);
    EXPECT_EQ(w[69] & 0x4020, 0x4020);
    EXPECT_EQ(w[105], 8);
    EXPECT_EQ(B("trimdet").disk.identify_words()[69] & 0x4020, 0x4000);
    EXPECT_EQ(B("ssd").disk.identify_words()[169], 0);
    EXPECT_EQ(B("ssd").disk.identify_words()[69] & 0x4020, 0);

    const Bytes data = pattern(32 * 512, 21);
    EXPECT_EQ(run(b, cmd(0x35, 2000, 32), data).status, 0x50); // in the write cache
    Result t = run(b, cmd(0x06, 0, 1, 0x01), ranges({{2004, 8}, {2020, 4}}));
    EXPECT_TRUE(t.done && t.status == 0x50 && t.error == 0);
    Bytes want = data;
    std::fill(want.begin() + 4 * 512, want.begin() + 12 * 512, uint8_t(0));
    std::fill(want.begin() + 20 * 512, want.begin() + 24 * 512, uint8_t(0));
    EXPECT_TRUE(run(b, cmd(0x25, 2000, 32)).data == want);
    // forgotten for good: a power loss does not bring the old data back
    b.disk.power_loss("t");
    EXPECT_TRUE(comreset(b).has_value());
    Result after = run(b, cmd(0x25, 2004, 8));
    EXPECT_TRUE(after.data == Bytes(8 * 512, 0));

    // an entry in the second of two blocks counts too
    EXPECT_EQ(run(b, cmd(0x35, 3000, 8), data).status, 0x50);
    Bytes two(1024, 0);
    const uint64_t v = 3002 | uint64_t(2) << 48;
    for (int k = 0; k < 8; ++k)
        two[512 + size_t(k)] = uint8_t(v >> (8 * k));
    EXPECT_EQ(run(b, cmd(0x06, 0, 2, 0x01), two).status, 0x50);
    Result r2 = run(b, cmd(0x25, 3000, 8));
    EXPECT_EQ(r2.data.size(), 8u * 512);
    if (r2.data.size() != 8u * 512)
        return;
    EXPECT_TRUE(Bytes(r2.data.begin(), r2.data.begin() + 2 * 512) ==
                Bytes(data.begin(), data.begin() + 2 * 512));
    EXPECT_TRUE(Bytes(r2.data.begin() + 2 * 512, r2.data.begin() + 4 * 512) == Bytes(1024, 0));

    // refused: no TRIM bit, no blocks, more blocks than word 105, a range past the media
    // (with a good entry before it: nothing trimmed), a drive without TRIM
    EXPECT_EQ(run(b, cmd(0x06, 0, 1, 0x00)).error, sata::kAtaAbrt);
    EXPECT_EQ(run(b, cmd(0x06, 0, 0, 0x01)).error, sata::kAtaAbrt);
    EXPECT_EQ(run(b, cmd(0x06, 0, 9, 0x01)).error, sata::kAtaAbrt);
    EXPECT_EQ(run(b, cmd(0x35, 4000, 8), data).status, 0x50);
    Result bad = run(b, cmd(0x06, 0, 1, 0x01), ranges({{4000, 8}, {999999, 2}}));
    EXPECT_TRUE(bad.status == 0x51 && bad.error == sata::kAtaAbrt);
    EXPECT_TRUE(run(b, cmd(0x25, 4000, 8)).data == Bytes(data.begin(), data.begin() + 8 * 512));
    EXPECT_EQ(run(B("ssd"), cmd(0x06, 0, 1, 0x01)).error, sata::kAtaAbrt);

    // without "read zeroes after TRIM" the model's choice: the sector reads as never written
    EXPECT_EQ(run(d, cmd(0x35, 500, 4), data).status, 0x50);
    EXPECT_EQ(run(d, cmd(0x06, 0, 1, 0x01), ranges({{501, 2}})).status, 0x50);
    Result rd = run(d, cmd(0x25, 500, 4));
    EXPECT_EQ(rd.data.size(), 4u * 512);
    if (rd.data.size() != 4u * 512)
        return;
    EXPECT_TRUE(Bytes(rd.data.begin(), rd.data.begin() + 512) == Bytes(data.begin(), data.begin() + 512));
    for (uint64_t i = 1; i < 3; ++i)
        EXPECT_TRUE(MediaStore::is_blank_sector(rd.data.data() + i * 512, 500 + i, MediaStore::kDefaultSeed));
}

// Interface power management (docs/device.md 6): HIPM and DIPM in IDENTIFY words 76/78/79,
// SET FEATURES 10h/90h 03h (aborted without DIPM), and the host's PMREQ answered PMACK by an
// idle HIPM drive, PMNAK by one without HIPM or with the lpm_fail pmnak fault.
MODEL_TEST(interface_power_management) {
    Bench &p = B("pm");
    Bench &h = B("hdd");
    EXPECT_TRUE(p.comreset().has_value());
    EXPECT_TRUE(h.comreset().has_value());
    EXPECT_EQ(p.disk.identify_words()[76] & 0x0200, 0x0200);
    EXPECT_EQ(p.disk.identify_words()[78] & 0x0008, 0x0008);
    EXPECT_EQ(p.disk.identify_words()[79] & 0x0008, 0);
    EXPECT_EQ(h.disk.identify_words()[76] & 0x0200, 0);
    EXPECT_EQ(h.disk.identify_words()[78] & 0x0008, 0);
    Result r = run(p, cmd(0xEF, 0, 0x03, 0x10)); // enable DIPM
    EXPECT_TRUE(r.done && r.status == 0x50);
    EXPECT_EQ(p.disk.identify_words()[79] & 0x0008, 0x0008);
    r = run(p, cmd(0xEF, 0, 0x03, 0x90));
    EXPECT_TRUE(r.done && r.status == 0x50);
    EXPECT_EQ(p.disk.identify_words()[79] & 0x0008, 0);
    r = run(h, cmd(0xEF, 0, 0x03, 0x10)); // no DIPM: aborted
    EXPECT_TRUE(r.done && r.status == 0x51 && r.error == 0x04);
    sc_core::wait(10, sc_core::SC_US);
    EXPECT_TRUE(h.link.request_power(true, link::PowerState::Partial) == link::PmResult::Denied);
    EXPECT_TRUE(p.link.request_power(true, link::PowerState::Slumber) == link::PmResult::Entered);
    EXPECT_EQ(p.link.sstatus() >> 8 & 0xF, 6u);
    // a command in Slumber: the host's frame wakes the link, the command completes
    r = run(p, cmd(0xEF, 0, 0x03, 0x10));
    EXPECT_TRUE(r.done && r.status == 0x50);
    EXPECT_EQ(p.link.sstatus() >> 8 & 0xF, 1u);
    run(p, cmd(0xEF, 0, 0x03, 0x90));
    sc_core::wait(10, sc_core::SC_US);
    p.disk.inject_lpm_fail(device::LpmFail::Pmnak, 0, {}, "t");
    EXPECT_TRUE(p.link.request_power(true, link::PowerState::Partial) == link::PmResult::Denied);
    p.disk.clear_faults();
    EXPECT_TRUE(p.link.request_power(true, link::PowerState::Partial) == link::PmResult::Entered);
    EXPECT_TRUE(p.link.wake(true));
}

// Queued TRIM (docs/device.md 3.2): IDENTIFY word 77 bit 6, log 13h listed in the directory
// and saying DSM TRIM, SEND FPDMA QUEUED with the TRIM bit forgets the ranges beside queued
// reads and writes; a clear TRIM bit or another subcommand is an NCQ error; the erratum
// drive aborts every queued TRIM; a drive without queued TRIM refuses 64h.
MODEL_TEST(queued_trim_forgets_the_ranges) {
    auto ranges = [](std::vector<std::pair<uint64_t, uint16_t>> rs) {
        Bytes b(512, 0);
        for (size_t i = 0; i < rs.size(); ++i) {
            const uint64_t v = rs[i].first | uint64_t(rs[i].second) << 48;
            for (int k = 0; k < 8; ++k)
                b[i * 8 + size_t(k)] = uint8_t(v >> (8 * k));
        }
        return b;
    };
    Bench &b = B("ncqtrim");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_EQ(b.disk.identify_words()[77] & 0x0040, 0x0040);
    EXPECT_EQ(B("trim").disk.identify_words()[77] & 0x0040, 0); // TRIM, not queued
    Result dir = run(b, cmd(0x2F, 0x00, 1));
    EXPECT_TRUE(dir.data.size() == 512 && dir.data[2 * 0x13] == 1 && dir.data[2 * 0x10] == 1);
    Result log = run(b, cmd(0x2F, 0x13, 1));
    EXPECT_TRUE(log.done && log.data.size() == 512);
    if (log.data.size() == 512)
        EXPECT_TRUE(log.data[0] == 0x01 && log.data[4] == 0x01);
    EXPECT_EQ(run(B("trim"), cmd(0x2F, 0x13, 1)).status, 0x51); // no such log without it

    const Bytes data = pattern(32 * 512, 31);
    EXPECT_EQ(run(b, cmd(0x35, 6000, 32), data).status, 0x50);
    Ncq n(b);
    n.wdata[3] = ranges({{6004, 8}, {6020, 2}});
    EXPECT_TRUE(n.issue(1, false, 100, 8)); // queued beside a read
    EXPECT_TRUE(n.issue_trim(3, 1));
    EXPECT_TRUE(n.wait_done(1u << 1 | 1u << 3));
    EXPECT_TRUE(n.error_sdbs.empty());
    EXPECT_TRUE(b.tr.count("disk.trim") == 1);
    Bytes want = data;
    std::fill(want.begin() + 4 * 512, want.begin() + 12 * 512, uint8_t(0));
    std::fill(want.begin() + 20 * 512, want.begin() + 22 * 512, uint8_t(0));
    EXPECT_TRUE(run(b, cmd(0x25, 6000, 32)).data == want);

    // the TRIM bit clear: an NCQ error with ABRT, nothing trimmed; log 10h names the tag
    EXPECT_EQ(run(b, cmd(0x35, 7000, 8), data).status, 0x50);
    Ncq bad(b);
    bad.wdata[5] = ranges({{7000, 8}});
    EXPECT_TRUE(bad.issue_trim(5, 1, 0, 0));
    while (bad.error_sdbs.empty() && bad.pump()) {
    }
    EXPECT_EQ(bad.error_sdbs.size(), 1u);
    if (!bad.error_sdbs.empty())
        EXPECT_EQ(bad.error_sdbs[0].at(3), sata::kAtaAbrt);
    Result l10 = run(b, cmd(0x2F, 0x10, 1));
    EXPECT_TRUE(l10.data.size() == 512 && l10.data[0] == 5);
    EXPECT_TRUE(run(b, cmd(0x25, 7000, 8)).data == Bytes(data.begin(), data.begin() + 8 * 512));

    // the erratum drive: offered, and aborted
    Bench &e = B("ncqtrimbad");
    EXPECT_TRUE(comreset(e).has_value());
    EXPECT_EQ(e.disk.identify_words()[77] & 0x0040, 0x0040);
    EXPECT_EQ(run(e, cmd(0x35, 7000, 8), data).status, 0x50);
    Ncq en(e);
    en.wdata[2] = ranges({{7000, 8}});
    EXPECT_TRUE(en.issue_trim(2, 1));
    while (en.error_sdbs.empty() && en.pump()) {
    }
    EXPECT_EQ(en.error_sdbs.size(), 1u);
    EXPECT_TRUE(e.tr.count("fault.effect") == 1);
    EXPECT_EQ(run(e, cmd(0x2F, 0x10, 1)).status, 0x50);
    EXPECT_TRUE(run(e, cmd(0x25, 7000, 8)).data == Bytes(data.begin(), data.begin() + 8 * 512));

    // a drive with TRIM but not queued TRIM: 64h is an unknown command (ABRT)
    Result r64 = run(B("trim"), cmd(0x64, 0, 0, 1));
    EXPECT_TRUE(r64.status == 0x51 && r64.error == sata::kAtaAbrt);
}

// SMART RETURN STATUS (docs/device.md 5): the key 4Fh/C2h in, 4Fh/C2h (good) or F4h/2Ch
// (threshold exceeded) out in LBA mid/high; IDENTIFY 82/85 bit 0; ABRT without the feature
// set, with a wrong key or another subcommand.
MODEL_TEST(smart_return_status) {
    Bench &g = B("smartok");
    Bench &x = B("smartbad");
    EXPECT_TRUE(comreset(g).has_value());
    EXPECT_TRUE(comreset(x).has_value());
    EXPECT_EQ(g.disk.identify_words()[82] & 1, 1);
    EXPECT_EQ(g.disk.identify_words()[85] & 1, 1);
    EXPECT_EQ(B("ssd").disk.identify_words()[82] & 1, 0);
    Result ok = run(g, cmd(0xB0, 0xC24F00, 0, 0xDA));
    EXPECT_EQ(ok.status, 0x50);
    EXPECT_EQ(ok.d2h.lba & 0xFFFF00, 0xC24F00u);
    Result bad = run(x, cmd(0xB0, 0xC24F00, 0, 0xDA));
    EXPECT_EQ(bad.status, 0x50);
    EXPECT_EQ(bad.d2h.lba & 0xFFFF00, 0x2CF400u);
    EXPECT_EQ(run(g, cmd(0xB0, 0xC24E00, 0, 0xDA)).error, sata::kAtaAbrt); // wrong key
    // READ DATA: one sector by PIO, revision 0010h, the checksum in byte 511; its PIO Setup
    // FIS carries the command's registers (what libata keeps as the pass-through's result)
    Result rd = run(g, cmd(0xB0, 0xC24F00, 1, 0xD0));
    EXPECT_TRUE(rd.done && rd.status == 0x50 && rd.error == 0);
    EXPECT_EQ(rd.data.size(), 512u);
    EXPECT_EQ(rd.pio_setups.size(), 1u);
    if (rd.data.size() == 512 && !rd.pio_setups.empty()) {
        unsigned sum = 0;
        for (uint8_t v : rd.data)
            sum += v;
        EXPECT_EQ(sum & 0xFF, 0u);
        EXPECT_EQ(word(rd.data, 0), 0x0010);
        EXPECT_EQ(rd.pio_setups[0].at(5) | rd.pio_setups[0].at(6) << 8, 0xC24F); // LBA mid/high
        EXPECT_EQ(rd.pio_setups[0].at(12), 1);                                  // Count
    }
    // ENABLE OPERATIONS as smartmontools sends it (LBA low 01h): done, the registers as
    // written (dmesg corpus 38: a later timeout on that tag shows "res 40/00:00:01:4f:c2/...");
    // DISABLE OPERATIONS (D9h) is not modelled
    Result en = run(g, cmd(0xB0, 0xC24F01, 0, 0xD8));
    EXPECT_TRUE(en.done && en.status == 0x50 && en.error == 0);
    EXPECT_EQ(en.d2h.lba & 0xFFFFFF, 0xC24F01u);
    EXPECT_EQ(run(g, cmd(0xB0, 0xC24F01, 0, 0xD9)).error, sata::kAtaAbrt);
    EXPECT_EQ(run(B("ssd"), cmd(0xB0, 0xC24F01, 0, 0xD8)).error, sata::kAtaAbrt);
    EXPECT_EQ(run(B("ssd"), cmd(0xB0, 0xC24F00, 0, 0xDA)).error, sata::kAtaAbrt);
}

// Advanced Format (docs/device.md 4): word 106 says eight logical per physical sector, word
// 209 the offset of LBA 0; with the write cache off, a write inside a physical sector takes the
// SSD's read latency more than the same write aligned (disk.rmw), and the data reads back.
MODEL_TEST(advanced_format_rmw) {
    Bench &b = B("af512e");
    Bench &o = B("af512eoff");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_TRUE(comreset(o).has_value());
    EXPECT_EQ(b.disk.identify_words()[106], 0x6003);
    EXPECT_EQ(b.disk.identify_words()[209], 0x4000);
    EXPECT_EQ(o.disk.identify_words()[209], 0x4001);
    EXPECT_EQ(B("hdd").disk.identify_words()[106], 0x4000);
    const Bytes data = pattern(8 * 512, 41);
    auto timed = [&](Bench &bb, uint64_t lba) {
        const sc_time t0 = sc_core::sc_time_stamp();
        EXPECT_EQ(run(bb, cmd(0x35, lba, 8), data).status, 0x50);
        return sc_core::sc_time_stamp() - t0;
    };
    const sc_time aligned = timed(b, 200000), inside = timed(b, 200003);
    EXPECT_EQ(b.tr.count("disk.rmw"), 1u);
    const double read_s = b.disk.config().timing.flat_latency_us * 1e-6;
    const double extra = (inside - aligned).to_seconds();
    EXPECT_TRUE(read_s > 0 && extra > read_s - 1e-6 && extra < read_s + 1e-6); // (dword clock phase: ns)
    EXPECT_TRUE(run(b, cmd(0x25, 200003, 8)).data == data);
    // with LBA 0 one sector into its physical sector, physical sectors start at 7, 15, ...
    (void)timed(o, 200007);
    EXPECT_EQ(o.tr.count("disk.rmw"), 0u);
    (void)timed(o, 200000);
    EXPECT_EQ(o.tr.count("disk.rmw"), 1u);
}

// 4Kn (docs/device.md 4.1; ACS-3 7.12.7.44, 7.12.7.50): IDENTIFY word 106 bit 12 with words
// 117-118 the logical sector in words (2048), the capacity words in 4096-byte sectors; every
// LBA and count of a command in them: a DMA transfer of n sectors moves 4096 n bytes in Data
// FISes of at most 8 KiB (two sectors), a PIO DRQ block is one 4096-byte sector (READ/WRITE
// MULTIPLE at most two: word 47), an NCQ DMA Setup counts 4096 n bytes; the media store keeps
// 512-byte sectors, logical sector L its sectors 8L .. 8L+7 (a never-written one reads their
// blank patterns). Before the logical sector: every one of these moved 512 bytes a sector.
MODEL_TEST(native_4k_sectors) {
    Bench &b = B("af4kn");
    EXPECT_TRUE(comreset(b).has_value());
    const std::vector<uint16_t> w = b.disk.identify_words();
    EXPECT_EQ(w[106], 0x5000);
    EXPECT_EQ(w[117], 0x0800);
    EXPECT_EQ(w[118], 0);
    EXPECT_EQ(w[47], 0x8002);
    EXPECT_EQ(w[100] | uint32_t(w[101]) << 16, 262144u); // 1 GiB of 4096-byte sectors
    EXPECT_EQ(B("hdd").disk.identify_words()[117], 0);
    const Bytes data = pattern(3 * 4096, 51);
    Result wr = run(b, cmd(0x35, 10, 3), data);
    EXPECT_TRUE(wr.done && wr.status == 0x50);
    EXPECT_EQ(wr.activates, 2u);
    Result rd = run(b, cmd(0x25, 10, 3));
    EXPECT_TRUE(rd.done && rd.status == 0x50);
    EXPECT_TRUE(rd.data_fis_sizes == std::vector<size_t>({8192, 4096}));
    EXPECT_TRUE(rd.data == data);
    Bytes stored(3 * 4096);
    b.disk.media().read(80, 24, stored.data());
    EXPECT_TRUE(stored == data);
    Result blank = run(b, cmd(0x25, 5000, 1));
    Bytes want(4096);
    for (unsigned i = 0; i < 8; ++i)
        device::MediaStore::blank_sector(want.data() + 512 * i, 40000 + i, b.disk.media().seed());
    EXPECT_TRUE(blank.data == want);
    // PIO: one logical sector per DRQ block; SET MULTIPLE takes 2, not 4
    Result ps = run(b, cmd(0x24, 10, 2));
    EXPECT_EQ(ps.pio_setups.size(), 2u);
    if (ps.pio_setups.size() == 2)
        EXPECT_EQ(ps.pio_setups[1].at(16) | ps.pio_setups[1].at(17) << 8, 4096);
    EXPECT_TRUE(ps.data == Bytes(data.begin(), data.begin() + 8192));
    EXPECT_EQ(run(b, cmd(0xC6, 0, 4)).status, 0x51);
    EXPECT_EQ(run(b, cmd(0xC6, 0, 2)).status, 0x50);
    const Bytes d2 = pattern(3 * 4096, 52);
    Result wm = run(b, cmd(0x39, 20, 3), d2); // WRITE MULTIPLE EXT: blocks of 8192, 4096
    EXPECT_TRUE(wm.done && wm.status == 0x50);
    EXPECT_EQ(wm.pio_setups.size(), 2u);
    if (wm.pio_setups.size() == 2)
        EXPECT_EQ(wm.pio_setups[0].at(16) | wm.pio_setups[0].at(17) << 8, 8192);
    EXPECT_TRUE(run(b, cmd(0x25, 20, 3)).data == d2);
    // NCQ: the DMA Setup's count in bytes
    Ncq q(b);
    q.wdata[3] = pattern(4 * 4096, 53);
    EXPECT_TRUE(q.issue(3, true, 100, 4));
    EXPECT_TRUE(q.wait_done(1u << 3));
    Ncq r(b);
    EXPECT_TRUE(r.issue(5, false, 100, 4));
    EXPECT_TRUE(r.wait_done(1u << 5));
    EXPECT_TRUE(r.rdata[5] == q.wdata[3]);
    // beyond the last 4096-byte sector: IDNF
    EXPECT_EQ(run(b, cmd(0x25, 262144, 1)).error & 0x10, 0x10);
}

// DevSleep (docs/device.md 6.2; ACS-3 9.10, SATA 3.2): IDENTIFY word 78 bit 8, SET FEATURES
// 10h/90h with Count 09h enabling it (word 79 bit 8) and taking the DEVSLP signal, aborted on a
// drive without it; the log directory gives log 30h nine pages, page 00h lists them, page 08h
// holds the DEVSLP timing qword at 30h (MDAT 16, DETO 30, valid), a page past them aborts.
MODEL_TEST(devsleep_identify_set_features_and_log) {
    Bench &b = B("devslp");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_EQ(b.disk.identify_words()[78] & 0x0100, 0x0100);
    EXPECT_EQ(b.disk.identify_words()[79] & 0x0100, 0);
    EXPECT_EQ(B("ssd").disk.identify_words()[78] & 0x0100, 0);
    EXPECT_TRUE(!b.disk.takes_devsleep());
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0x09, 0x10)).status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[79] & 0x0100, 0x0100);
    EXPECT_TRUE(b.disk.takes_devsleep());
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0x09, 0x90)).status, 0x50);
    EXPECT_EQ(b.disk.identify_words()[79] & 0x0100, 0);
    EXPECT_TRUE(!b.disk.takes_devsleep());
    EXPECT_EQ(run(B("ssd"), cmd(0xEF, 0, 0x09, 0x10)).status, 0x51);
    Result dir = run(b, cmd(0x2F, 0x00, 1));
    EXPECT_TRUE(dir.data.size() == 512 && dir.data[2 * 0x30] == 9 && dir.data[2 * 0x30 + 1] == 0);
    Result p0 = run(b, cmd(0x2F, 0x30, 1));
    EXPECT_TRUE(p0.done && p0.data.size() == 512);
    if (p0.data.size() == 512)
        EXPECT_TRUE(p0.data[8] == 9 && p0.data[9] == 0 && p0.data[17] == 8);
    Result p8 = run(b, cmd(0x2F, 0x0830, 1));
    EXPECT_TRUE(p8.done && p8.data.size() == 512);
    if (p8.data.size() == 512)
        EXPECT_TRUE(p8.data[2] == 8 && p8.data[0x30] == 16 && p8.data[0x31] == 30 && p8.data[0x37] == 0x80);
    EXPECT_EQ(run(b, cmd(0x2F, 0x0930, 1)).status, 0x51);     // past the nine pages
    EXPECT_EQ(run(B("ssd"), cmd(0x2F, 0x30, 1)).status, 0x51); // no log 30h without DevSleep
    Result dir2 = run(B("ssd"), cmd(0x2F, 0x00, 1));
    EXPECT_TRUE(dir2.data.size() == 512 && dir2.data[2 * 0x30] == 0);
}

int sc_main(int, char **) {
    DiskConfig hdd;
    DiskConfig rev = hdd;
    rev.ncq_order = NcqOrder::Reverse;
    DiskConfig rnd = hdd;
    rnd.ncq_order = NcqOrder::Random;
    rnd.seed = 7;
    DiskConfig rnd3 = rnd;
    rnd3.seed = 8;
    DiskConfig sstf = hdd;
    sstf.ncq_order = NcqOrder::ShortestSeek;
    DiskConfig small;
    small.sectors = 5000;
    small.lba48 = false;
    small.ncq_depth = 8;
    small.max_gen = Gen::Gen1;
    DiskConfig ssd;
    ssd.sectors = 1000000;
    ssd.timing.ssd = true;
    ssd.model = "SATASIM SSD";
    DiskConfig hpa = ssd;
    hpa.hpa_sectors = 900000; // a Host Protected Area: 900000 of 1000000 sectors accessible
    DiskConfig trim = ssd;
    trim.trim = DiskConfig::Trim::Zeroes;
    DiskConfig trimdet = ssd;
    trimdet.trim = DiskConfig::Trim::Deterministic;
    DiskConfig pio0 = hdd;
    pio0.pio_max = 0;
    DiskConfig pm = ssd;
    pm.hipm = pm.dipm = true;
    pm.dipm_idle_us = 1e6; // (no device-initiated request inside the test's steps)
    DiskConfig devslp = ssd;
    devslp.devsleep = true;
    DiskConfig ncqtrim = trim;
    ncqtrim.ncq_trim = true;
    DiskConfig ncqtrimbad = ncqtrim;
    ncqtrimbad.ncq_trim_erratum = true;
    DiskConfig smartok = ssd;
    smartok.smart = DiskConfig::Smart::Good;
    DiskConfig smartbad = ssd;
    smartbad.smart = DiskConfig::Smart::ThresholdExceeded;
    DiskConfig af512e = ssd; // write cache off: every write goes to the media
    af512e.physical_log2 = 3;
    af512e.write_cache = false;
    DiskConfig af512eoff = af512e;
    af512eoff.align_offset = 1;
    DiskConfig af4kn = ssd; // 4Kn: 1 GiB of 4096-byte logical (and physical) sectors
    af4kn.logical_log2 = 3;
    af4kn.sectors = 262144;
    af4kn.multi_max = 16;
    Bench b1("hdd", hdd), b2("rev", rev), b3("rnd1", rnd), b4("rnd2", rnd), b5("rnd3", rnd3),
        b6("small", small), b7("ssd", ssd), b8("sstf", sstf), b9("hpa", hpa),
        b10("trim", trim), b11("trimdet", trimdet), b12("ncqtrim", ncqtrim), b13("ncqtrimbad", ncqtrimbad),
        b14("smartok", smartok), b15("smartbad", smartbad), b16("af512e", af512e), b17("af512eoff", af512eoff),
        b18("pm", pm), b19("pio0", pio0), b20("devslp", devslp), b21("af4kn", af4kn);
    benches = {{"hdd", &b1}, {"rev", &b2}, {"rnd1", &b3}, {"rnd2", &b4},
               {"rnd3", &b5}, {"small", &b6}, {"ssd", &b7}, {"sstf", &b8}, {"hpa", &b9},
               {"trim", &b10}, {"trimdet", &b11}, {"ncqtrim", &b12}, {"ncqtrimbad", &b13},
               {"smartok", &b14}, {"smartbad", &b15}, {"af512e", &b16}, {"af512eoff", &b17}, {"devslp", &b20},
               {"pm", &b18}, {"pio0", &b19}, {"af4kn", &b21}};
    return satasim::test::run_all();
}

// The media store alone: a write into part of a 4 KiB chunk leaves the chunk's other
// sectors blank, a read spanning written and never-written chunks returns each, and a
// random 4 KiB write costs one chunk (4 KiB plus a table entry), not a larger block.
MODEL_TEST(media_store_partial_chunks_and_cost) {
    MediaStore m(12345);
    Bytes one(512, 0x11), blank5(512), got(512 * 20);
    m.write(5, 1, one.data());
    MediaStore::blank_sector(blank5.data(), 4, 12345);
    m.read(0, 20, got.data());
    EXPECT_TRUE(std::equal(one.begin(), one.end(), got.begin() + 5 * 512));
    EXPECT_TRUE(std::equal(blank5.begin(), blank5.end(), got.begin() + 4 * 512));
    for (uint64_t l : {0u, 4u, 6u, 7u, 8u, 19u})
        EXPECT_TRUE(MediaStore::is_blank_sector(got.data() + l * 512, l, 12345));
    EXPECT_TRUE(!MediaStore::is_blank_sector(got.data() + 4 * 512, 4, 12346)); // another seed
    EXPECT_EQ(m.sectors_stored(), 8u);
    Bytes w(4096, 0x22);
    uint64_t x = 1;
    for (int i = 0; i < 1000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        m.write((x >> 20) % (uint64_t(1) << 31) / 8 * 8, 8, w.data()); // 4 KiB-aligned, 1 TiB disk
    }
    EXPECT_TRUE(m.sectors_stored() <= 8u * 1001);
    EXPECT_TRUE(m.bytes_allocated() < 1001u * 4096 * 21 / 20); // within 5% of the data
    m.clear(99);
    EXPECT_EQ(m.sectors_stored(), 0u);
    EXPECT_EQ(m.seed(), 99u);
    m.read(5, 1, got.data());
    EXPECT_TRUE(MediaStore::is_blank_sector(got.data(), 5, 99));
}

// The volatile write cache (write_cache.h): with the cache on, an acknowledged write is lost
// by a power loss unless FLUSH CACHE (EXT), FUA, or disabling the cache wrote it back; the
// platters keep what was written back. Reads before the loss see the newest data.
MODEL_TEST(write_cache_power_loss_keeps_only_written_back_data) {
    Bench &b = B("ssd");
    const Bytes blank = [] {
        Bytes s(8 * 512);
        for (uint64_t i = 0; i < 8; ++i)
            MediaStore::blank_sector(s.data() + i * 512, 5000 + i, MediaStore::kDefaultSeed);
        return s;
    }();
    EXPECT_TRUE(b.disk.identify_words()[85] & 0x0020); // enabled at power-on
    const Bytes a = pattern(8 * 512, 1), c = pattern(8 * 512, 2), fua = pattern(8 * 512, 3);
    // unflushed: read back new before the loss, old (never written) after it
    EXPECT_EQ(run(b, cmd(0x35, 5000, 8), a).status, 0x50);
    EXPECT_EQ(b.disk.cache_dirty_sectors(), 8u);
    EXPECT_TRUE(run(b, cmd(0x25, 5000, 8)).data == a);
    EXPECT_EQ(b.disk.lose_cache("t"), 8u);
    EXPECT_TRUE(run(b, cmd(0x25, 5000, 8)).data == blank);
    // flushed (FLUSH CACHE EXT): kept
    EXPECT_EQ(run(b, cmd(0x35, 5000, 8), a).status, 0x50);
    EXPECT_EQ(run(b, cmd(0xEA)).status, 0x50);
    EXPECT_EQ(b.disk.cache_dirty_sectors(), 0u);
    EXPECT_EQ(run(b, cmd(0x35, 5000, 4), c).status, 0x50); // then half of it again, unflushed
    EXPECT_EQ(b.disk.lose_cache("t"), 4u);
    Bytes want = a;
    EXPECT_TRUE(run(b, cmd(0x25, 5000, 8)).data == want);
    // FUA (WRITE DMA FUA EXT) over a dirty sector: that sector is durable, its neighbour not
    EXPECT_EQ(run(b, cmd(0x35, 5000, 2), c).status, 0x50);
    EXPECT_EQ(run(b, cmd(0x3D, 5000, 1), fua).status, 0x50);
    EXPECT_EQ(b.disk.lose_cache("t"), 1u);
    Bytes got = run(b, cmd(0x25, 5000, 2)).data;
    EXPECT_TRUE(std::equal(fua.begin(), fua.begin() + 512, got.begin()));
    EXPECT_TRUE(std::equal(a.begin() + 512, a.begin() + 1024, got.begin() + 512));
    // SET FEATURES 82h (disable) writes the cache back; writes then go through
    EXPECT_EQ(run(b, cmd(0x35, 5000, 8), c).status, 0x50);
    EXPECT_EQ(run(b, cmd(0xEF, 0, 0, 0x82)).status, 0x50);
    EXPECT_TRUE(!(b.disk.identify_words()[85] & 0x0020));
    EXPECT_EQ(b.disk.cache_dirty_sectors(), 0u);
    EXPECT_EQ(run(b, cmd(0x35, 5008, 8), fua).status, 0x50);
    EXPECT_EQ(b.disk.lose_cache("t"), 0u);
    EXPECT_TRUE(run(b, cmd(0x25, 5000, 8)).data == c);
    EXPECT_TRUE(run(b, cmd(0x25, 5008, 8)).data == fua);
    // a power loss restarts the drive at its power-on settings: the cache enabled again
    b.disk.power_loss("t");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_TRUE(b.disk.identify_words()[85] & 0x0020);
    EXPECT_EQ(run(b, cmd(0x35, 5000, 8), a).status, 0x50);
    b.disk.power_loss("t");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_TRUE(run(b, cmd(0x25, 5000, 8)).data == c);
}

// bad_fis: what a drive with a broken firmware puts on the wire. The unsolicited FISes go
// out with the drive idle (the command process's next turn), once; long_d2h pads the next
// Register D2H FIS (the status of the next command) by one dword, once.
MODEL_TEST(bad_fis_sends_what_the_fault_names) {
    Bench &b = B("ssd");
    b.host.q.clear();
    b.disk.inject_bad_fis(BadFis::UnknownType, 0xD9, "t");
    auto f = b.host.next();
    EXPECT_TRUE(f.has_value());
    EXPECT_EQ(f->bytes.size(), 16u);
    EXPECT_EQ(f->bytes[0], 0xD9);
    EXPECT_EQ(f->dword(3), 0x0f0e0d0cu);
    b.disk.inject_bad_fis(BadFis::UnsolicitedD2h, 0, "t");
    f = b.host.next();
    EXPECT_TRUE(f.has_value() && f->type() == FisType::RegD2H && f->bytes.size() == 20u);
    EXPECT_TRUE(f->at(1) & sata::kFisInterrupt);
    EXPECT_EQ(f->at(2) & (sata::kAtaBsy | sata::kAtaDrq | sata::kAtaErr), 0);
    b.disk.inject_bad_fis(BadFis::SpuriousSdb, 0, "t");
    f = b.host.next();
    EXPECT_TRUE(f.has_value() && f->type() == FisType::SetDeviceBits && f->bytes.size() == 8u);
    EXPECT_EQ(f->dword(1), 0x80000000u); // the highest tag of the queue, not outstanding
    EXPECT_TRUE(f->at(1) & sata::kFisInterrupt);
    EXPECT_TRUE(!b.host.next(sc_time(1, SC_MS)).has_value()); // each goes out once
    // long_d2h: the FLUSH's status FIS is six dwords; the next command's five again
    b.disk.inject_bad_fis(BadFis::LongD2h, 0, "t");
    b.host.send(sata::make_reg_h2d(cmd(0xE7), true));
    f = b.host.next();
    EXPECT_TRUE(f.has_value() && f->type() == FisType::RegD2H);
    EXPECT_EQ(f->bytes.size(), 24u);
    EXPECT_EQ(f->at(2), 0x50);
    EXPECT_EQ(run(b, cmd(0xE7)).status, 0x50);
    b.host.send(sata::make_reg_h2d(cmd(0xE7), true));
    f = b.host.next();
    EXPECT_TRUE(f.has_value() && f->bytes.size() == 20u);
    // a reset disarms what has not gone out yet
    b.disk.inject_bad_fis(BadFis::LongD2h, 0, "t");
    b.disk.clear_faults();
    EXPECT_EQ(run(b, cmd(0xE7)).status, 0x50);
}

// The Host Protected Area (ATA8-ACS 7.48-7.50): IDENTIFY reports the accessible size and
// the feature set; READ NATIVE MAX ADDRESS the media's; SET MAX ADDRESS (EXT) only right after
// it, within the media, one non-volatile setting per power-on, a volatile one gone at the next.
MODEL_TEST(hpa_set_max_address) {
    Bench &b = B("hpa");
    EXPECT_TRUE(comreset(b).has_value());
    auto id_sectors = [&] {
        std::vector<uint16_t> w = b.disk.identify_words();
        return uint64_t(w[100]) | uint64_t(w[101]) << 16 | uint64_t(w[102]) << 32;
    };
    std::vector<uint16_t> w = b.disk.identify_words();
    EXPECT_EQ(id_sectors(), 900000u);
    EXPECT_EQ(uint32_t(w[60] | w[61] << 16), 900000u);
    EXPECT_TRUE((w[82] & 0x0400) && (w[85] & 0x0400));
    EXPECT_TRUE(!(B("ssd").disk.identify_words()[82] & 0x0400)); // no HPA: not advertised
    EXPECT_EQ(run(b, cmd(0x25, 900000, 8)).error, sata::kAtaIdnf | sata::kAtaAbrt); // hidden
    // SET MAX without READ NATIVE MAX just before it: aborted
    Result r = run(b, cmd(0x37, 999999));
    EXPECT_EQ(r.status, 0x51);
    EXPECT_EQ(r.error, sata::kAtaAbrt);
    r = run(b, cmd(0x27));
    EXPECT_EQ(r.status, 0x50);
    EXPECT_EQ(r.d2h.lba, 999999u);
    EXPECT_EQ(run(b, cmd(0x37, 1000000)).error, sata::kAtaIdnf | sata::kAtaAbrt); // beyond the media
    // VV (Count bit 0) clear, as libata's unlock: volatile, gone with the power
    EXPECT_EQ(run(b, cmd(0x27)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0x37, 949999)).status, 0x50);
    EXPECT_EQ(id_sectors(), 950000u);
    b.disk.power_loss("t");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_EQ(id_sectors(), 900000u);
    // VV set: the whole media, kept over a power cycle; a second kept one aborted
    EXPECT_EQ(run(b, cmd(0x27)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0x37, 999999, 1)).status, 0x50);
    EXPECT_EQ(id_sectors(), 1000000u);
    EXPECT_EQ(run(b, cmd(0x25, 999992, 8)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0x27)).status, 0x50);
    EXPECT_EQ(run(b, cmd(0x37, 899999, 1)).error, sata::kAtaAbrt);
    b.disk.power_loss("t");
    EXPECT_TRUE(comreset(b).has_value());
    EXPECT_EQ(id_sectors(), 1000000u);
    // the LBA28 pair (F8h / F9h)
    r = run(b, cmd(0xF8, 0, 0));
    EXPECT_EQ(r.status, 0x50);
    EXPECT_EQ(r.d2h.lba & 0xFFFFFF, 999999u & 0xFFFFFF);
    Taskfile t = cmd(0xF9, 899999 & 0xFFFFFF);
    t.device = uint8_t(0x40 | ((899999 >> 24) & 0x0F));
    EXPECT_EQ(run(b, t).status, 0x50); // volatile
    EXPECT_EQ(id_sectors(), 900000u);
    EXPECT_TRUE(comreset(b).has_value()); // a hardware reset ends it: the kept size is back
    EXPECT_EQ(id_sectors(), 1000000u);
    // a drive without the feature set refuses SET MAX even after READ NATIVE MAX
    EXPECT_EQ(run(B("ssd"), cmd(0x27)).status, 0x50);
    EXPECT_EQ(run(B("ssd"), cmd(0x37, 999)).error, sata::kAtaAbrt);
}

// The cache alone: a full cache writes back the chunks dirty the longest (they survive a
// loss), a write-through over part of a dirty chunk keeps the rest dirty.
MODEL_TEST(write_cache_evicts_oldest_and_through_writes) {
    MediaStore m(99);
    WriteCache wc(m, 2); // two 4 KiB chunks
    const Bytes x(512 * 8, 0x11), y(512, 0x22);
    wc.write(0, 8, x.data(), false);  // chunk 0
    wc.write(8, 8, x.data(), false);  // chunk 1
    wc.write(16, 1, x.data(), false); // chunk 2: chunk 0 is written back
    EXPECT_EQ(wc.dirty_sectors(), 9u);
    wc.write(9, 1, y.data(), true); // through: sector 9 durable, the rest of chunk 1 dirty
    EXPECT_EQ(wc.dirty_sectors(), 8u);
    EXPECT_EQ(wc.lose(), 8u);
    Bytes got(512 * 17);
    m.read(0, 17, got.data());
    EXPECT_TRUE(std::equal(x.begin(), x.end(), got.begin()));                // written back
    EXPECT_TRUE(MediaStore::is_blank_sector(got.data() + 8 * 512, 8, 99));    // lost
    EXPECT_TRUE(std::equal(y.begin(), y.end(), got.begin() + 9 * 512));       // through
    EXPECT_TRUE(MediaStore::is_blank_sector(got.data() + 10 * 512, 10, 99));  // lost
    EXPECT_TRUE(MediaStore::is_blank_sector(got.data() + 16 * 512, 16, 99));  // lost
    EXPECT_EQ(wc.dirty_sectors(), 0u);
}
