// AtapiDevice through a real SataLink, driven at FIS level by a scripted host that plays the
// HBA's part of the PACKET protocol: signature, IDENTIFY PACKET DEVICE, the CDB phase per
// CMD DRQ type, byte-count-limited PIO, DMA with DMADIR, the MMC answers and sense, the tray.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "model/atapi/atapi_device.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::atapi;
using sata::Fis;
using sata::FisType;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::SC_MS;
using Bytes = std::vector<uint8_t>;

namespace {

struct Host : link::LinkEndpoint {
    link::SataLink *link = nullptr;
    std::deque<Fis> q;
    sc_core::sc_event ev;
    bool receive_fis(const Fis &f) override {
        q.push_back(f);
        ev.notify(sc_core::SC_ZERO_TIME);
        return true;
    }
    void phy_changed(bool, link::Gen) override {}
    std::optional<Fis> next(sc_time timeout = sc_time(500, SC_MS)) {
        if (q.empty())
            sc_core::wait(timeout, ev);
        if (q.empty())
            return std::nullopt;
        Fis f = q.front();
        q.pop_front();
        return f;
    }
};

struct Bench {
    test::RecordingTrace tr;
    Host host;
    link::SataLink link;
    AtapiDevice dev;
    Bench(const char *name, const AtapiConfig &cfg)
        : link((std::string(name) + "_link").c_str(), link::SataLink::Config{}, &tr),
          dev(name, cfg, &tr) {
        link.attach(&host, &dev);
        dev.connect(&link);
        host.link = &link;
    }
    std::optional<Fis> comreset() {
        host.q.clear();
        link.host_comreset(true);
        sc_core::wait(1, SC_MS);
        link.host_comreset(false);
        return host.next(sc_time(50, SC_MS));
    }
    void send(const Fis &f) { link.send_from_host(f); }
};

std::map<std::string, Bench *> benches;
Bench &B(const char *n) { return *benches.at(n); }

AtapiConfig config(CdbDrq drq = CdbDrq::Within50us, bool dmadir = false) {
    AtapiConfig c;
    c.disc = Disc{1000, 7};
    c.cdb_drq = drq;
    c.dmadir = dmadir;
    return c;
}

struct Packet {
    bool cdb_requested = false;
    bool cdb_irq = false;
    uint8_t cdb_ireason = 0;
    std::vector<uint16_t> drq_bytes; // per PIO DRQ block: LBA mid/high
    std::vector<uint8_t> drq_ireason;
    Bytes data;
    bool done = false;
    uint8_t status = 0, error = 0, ireason = 0;
};

using Cdb = std::array<uint8_t, 12>;

Packet packet(Bench &b, const Cdb &cdb, bool dma = false, uint16_t limit = 0xFC00, bool dmadir = false) {
    Packet p;
    Taskfile tf;
    tf.command = 0xA0;
    tf.feature = uint8_t((dma ? 1 : 0) | (dmadir ? 4 : 0));
    tf.lba = uint64_t(limit) << 8;
    b.send(sata::make_reg_h2d(tf, true));
    auto f = b.host.next();
    if (!f || f->type() != FisType::PioSetup || (f->at(1) & sata::kFisDirD2H))
        return p;
    Taskfile r = sata::parse_taskfile(*f);
    p.cdb_requested = true;
    p.cdb_irq = f->at(1) & sata::kFisInterrupt;
    p.cdb_ireason = uint8_t(r.count);
    b.send(sata::make_data(cdb.data(), 12));
    size_t xfer = 0; // the PIO Setup's transfer count: a Data FIS is padded to whole dwords
    for (;;) {
        f = b.host.next();
        if (!f)
            return p;
        switch (f->type()) {
        case FisType::PioSetup: {
            Taskfile t = sata::parse_taskfile(*f);
            p.drq_bytes.push_back(uint16_t(t.lba >> 8));
            p.drq_ireason.push_back(uint8_t(t.count));
            xfer = size_t(f->at(16) | f->at(17) << 8);
            break;
        }
        case FisType::Data: {
            const size_t n = xfer ? std::min(xfer, f->payload_size()) : f->payload_size();
            p.data.insert(p.data.end(), f->payload(), f->payload() + n);
            xfer = 0;
            break;
        }
        case FisType::RegD2H: {
            Taskfile t = sata::parse_taskfile(*f);
            p.done = true;
            p.status = t.command;
            p.error = t.feature;
            p.ireason = uint8_t(t.count);
            return p;
        }
        default:
            break;
        }
    }
}

Cdb read10(uint32_t lba, uint16_t n) {
    return {0x28, 0, uint8_t(lba >> 24), uint8_t(lba >> 16), uint8_t(lba >> 8), uint8_t(lba), 0,
            uint8_t(n >> 8), uint8_t(n), 0, 0, 0};
}
Cdb simple(uint8_t op, uint8_t b4 = 0) { return {op, 0, 0, 0, b4, 0, 0, 0, 0, 0, 0, 0}; }

Bytes disc_data(uint64_t seed, uint32_t lba, uint32_t n) {
    Bytes d(size_t(n) * kBlockSize);
    for (uint32_t i = 0; i < n; ++i)
        disc_block(seed, lba + i, d.data() + size_t(i) * kBlockSize);
    return d;
}

Bytes request_sense(Bench &b) { return packet(b, simple(0x03, 18)).data; }

void check_sense(Bench &b, uint8_t key, uint8_t asc, uint8_t ascq) {
    Bytes s = request_sense(b);
    EXPECT_TRUE(s.size() == 18);
    if (s.size() == 18) {
        EXPECT_TRUE(s[0] == 0x70);
        EXPECT_EQ(int(s[2] & 0xF), int(key));
        EXPECT_EQ(int(s[12]), int(asc));
        EXPECT_EQ(int(s[13]), int(ascq));
    }
}

test::Register t_signature("packet signature after COMRESET", [] {
    auto f = B("cd").comreset();
    EXPECT_TRUE(f.has_value());
    if (!f)
        return;
    Taskfile t = sata::parse_taskfile(*f);
    EXPECT_TRUE(f->type() == FisType::RegD2H);
    EXPECT_EQ(int(t.count), 1);
    EXPECT_EQ(int(t.lba & 0xFF), 1);
    EXPECT_EQ(int((t.lba >> 8) & 0xFF), 0x14);
    EXPECT_EQ(int((t.lba >> 16) & 0xFF), 0xEB);
    EXPECT_EQ(int(t.feature), 1);
    EXPECT_EQ(int(t.command & sata::kAtaBsy), 0);
});

test::Register t_identify("IDENTIFY DEVICE aborted with the signature; IDENTIFY PACKET DEVICE", [] {
    Bench &b = B("cd");
    Taskfile tf;
    tf.command = 0xEC;
    b.send(sata::make_reg_h2d(tf, true));
    auto f = b.host.next();
    EXPECT_TRUE(f && f->type() == FisType::RegD2H);
    if (f) {
        Taskfile t = sata::parse_taskfile(*f);
        EXPECT_TRUE(t.command & sata::kAtaErr);
        EXPECT_EQ(int(t.feature), int(sata::kAtaAbrt));
        EXPECT_EQ(int((t.lba >> 8) & 0xFFFF), 0xEB14);
    }
    tf.command = 0xA1;
    b.send(sata::make_reg_h2d(tf, true));
    auto ps = b.host.next();
    auto data = b.host.next();
    EXPECT_TRUE(ps && ps->type() == FisType::PioSetup && (ps->at(1) & sata::kFisDirD2H));
    EXPECT_TRUE(data && data->type() == FisType::Data && data->payload_size() == 512);
    if (ps && data && data->payload_size() == 512) {
        EXPECT_EQ(int(ps->at(15)), 0x50); // E_Status: good, the command ends with the block
        const uint8_t *w = data->payload();
        uint16_t w0 = uint16_t(w[0] | w[1] << 8);
        EXPECT_EQ(int(w0 >> 14), 2);          // ATAPI
        EXPECT_EQ(int((w0 >> 8) & 0x1F), 5); // CD/DVD
        EXPECT_EQ(int((w0 >> 5) & 3), 2);    // 50 us DRQ
        EXPECT_EQ(int(w0 & 3), 0);           // 12-byte packets
        EXPECT_EQ(int(w[88 * 2] & 0x7F), 0x3F); // UDMA 0-5
        EXPECT_EQ(int(w[62 * 2 + 1] & 0x80), 0); // no DMADIR needed
    }
    EXPECT_TRUE(b.host.next(sc_time(1, SC_MS)) == std::nullopt); // no D2H after a PIO-in IDENTIFY
});

test::Register t_cdb_drq("CDB phase: interrupt reason CoD, I bit only for the interrupt DRQ type", [] {
    Packet p = packet(B("cd"), simple(0x00));
    EXPECT_TRUE(p.cdb_requested);
    EXPECT_EQ(int(p.cdb_ireason), 1);
    EXPECT_TRUE(!p.cdb_irq);
    EXPECT_TRUE(p.done && p.status == 0x50 && p.ireason == 3);
    Bench &ib = B("cdi");
    EXPECT_TRUE(ib.comreset().has_value());
    Packet q = packet(ib, simple(0x00));
    EXPECT_TRUE(q.cdb_requested && q.cdb_irq);
    EXPECT_TRUE(q.done && q.status == 0x50);
});

test::Register t_pio_single("PIO READ(10) of one block: one DRQ block, data of the disc", [] {
    Packet p = packet(B("cd"), read10(5, 1));
    EXPECT_TRUE(p.done && p.status == 0x50 && p.ireason == 3);
    EXPECT_TRUE(p.drq_bytes.size() == 1 && p.drq_bytes[0] == 2048);
    EXPECT_TRUE(p.drq_ireason.size() == 1 && p.drq_ireason[0] == 2);
    EXPECT_TRUE(p.data == disc_data(7, 5, 1));
});

test::Register t_pio_multi("PIO READ(10) under a byte count limit: several DRQ blocks", [] {
    Packet p = packet(B("cd"), read10(10, 4), false, 3001); // odd limit: 3000-byte blocks
    EXPECT_TRUE(p.done && p.status == 0x50);
    EXPECT_EQ(p.drq_bytes.size(), size_t(3));
    if (p.drq_bytes.size() == 3) {
        EXPECT_EQ(int(p.drq_bytes[0]), 3000);
        EXPECT_EQ(int(p.drq_bytes[1]), 3000);
        EXPECT_EQ(int(p.drq_bytes[2]), 8192 - 6000);
    }
    EXPECT_TRUE(p.data == disc_data(7, 10, 4));
    Packet big = packet(B("cd"), read10(0, 16), false, 0xFC00); // 32 KiB in 8 KiB Data FISes
    EXPECT_EQ(big.drq_bytes.size(), size_t(4));
    EXPECT_TRUE(big.data == disc_data(7, 0, 16));
});

test::Register t_dma("DMA READ(12); DMADIR required and missing: aborted", [] {
    Cdb c{0xA8, 0, 0, 0, 0, 20, 0, 0, 0, 8, 0, 0};
    Packet p = packet(B("cd"), c, true);
    EXPECT_TRUE(p.done && p.status == 0x50);
    EXPECT_TRUE(p.drq_bytes.empty());
    EXPECT_TRUE(p.data == disc_data(7, 20, 8));
    Bench &d = B("cdd");
    EXPECT_TRUE(d.comreset().has_value());
    Packet bad = packet(d, c, true, 0, false);
    EXPECT_TRUE(bad.done && (bad.status & 1));
    EXPECT_EQ(int(bad.error), 0xB4);
    EXPECT_TRUE(bad.data.empty());
    Packet good = packet(d, c, true, 0, true);
    EXPECT_TRUE(good.done && good.status == 0x50);
    EXPECT_TRUE(good.data == disc_data(7, 20, 8));
});

test::Register t_mmc("INQUIRY, READ CAPACITY, MODE SENSE(10), bad opcode, LBA out of range", [] {
    Bench &b = B("cd");
    Cdb inq{0x12, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0};
    Packet p = packet(b, inq);
    EXPECT_TRUE(p.data.size() == 36);
    if (p.data.size() == 36) {
        EXPECT_EQ(int(p.data[0]), 5);
        EXPECT_EQ(int(p.data[1]), 0x80);
        EXPECT_TRUE(std::memcmp(&p.data[8], "SATASIM ", 8) == 0);
    }
    Packet cap = packet(b, simple(0x25));
    EXPECT_TRUE(cap.data == Bytes({0, 0, 0x03, 0xE7, 0, 0, 0x08, 0}));
    Cdb ms{0x5A, 0, 0x2A, 0, 0, 0, 0, 0, 64, 0, 0, 0};
    Packet m = packet(b, ms);
    EXPECT_TRUE(m.data.size() == 30 && m.data[8] == 0x2A);
    Packet bad = packet(b, simple(0xFF));
    EXPECT_TRUE(bad.done && bad.status == 0x51 && bad.error == 0x50);
    check_sense(b, 5, 0x20, 0);
    Packet oor = packet(b, read10(999, 2));
    EXPECT_TRUE(oor.done && oor.status == 0x51 && oor.data.empty());
    check_sense(b, 5, 0x21, 0);
    check_sense(b, 0, 0, 0); // REQUEST SENSE cleared it
});

test::Register t_tray("tray open: NOT READY 3A/00; medium change: UNIT ATTENTION 28/00 once", [] {
    Bench &b = B("cd");
    EXPECT_TRUE(b.dev.open_tray());
    Packet tur = packet(b, simple(0x00));
    EXPECT_TRUE(tur.done && tur.status == 0x51 && tur.error == 0x20);
    check_sense(b, 2, 0x3A, 0);
    Packet rd = packet(b, read10(0, 1));
    EXPECT_TRUE(rd.status == 0x51 && rd.data.empty());
    Cdb gesn{0x4A, 1, 0, 0, 0x10, 0, 0, 0, 8, 0, 0, 0};
    Packet ev = packet(b, gesn);
    EXPECT_TRUE(ev.data.size() == 8 && ev.data[4] == 3 && ev.data[5] == 1); // removal; tray open
    b.dev.change_medium(Disc{500, 99});
    Packet inq = packet(b, Cdb{0x12, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0}); // INQUIRY: no UA
    EXPECT_TRUE(inq.status == 0x50);
    Packet first = packet(b, read10(3, 1));
    EXPECT_TRUE(first.done && first.status == 0x51 && first.error == 0x60 && first.data.empty());
    check_sense(b, 6, 0x28, 0);
    Packet again = packet(b, read10(3, 1));
    EXPECT_TRUE(again.status == 0x50 && again.data == disc_data(99, 3, 1));
    // PREVENT: eject by START STOP UNIT refused (53/02), the button only raises an event
    EXPECT_TRUE(packet(b, simple(0x1E, 1)).status == 0x50);
    Packet ej = packet(b, simple(0x1B, 0x02));
    EXPECT_TRUE(ej.status == 0x51);
    check_sense(b, 5, 0x53, 2);
    EXPECT_TRUE(!b.dev.open_tray());
    Packet ev2 = packet(b, gesn);
    EXPECT_TRUE(ev2.data.size() == 8 && ev2.data[4] == 1 && ev2.data[5] == 2);
    EXPECT_TRUE(packet(b, simple(0x1E, 0)).status == 0x50);
    EXPECT_TRUE(packet(b, simple(0x1B, 0x02)).status == 0x50);
    EXPECT_TRUE(b.dev.unit().tray_open());
    EXPECT_TRUE(packet(b, simple(0x1B, 0x03)).status == 0x50); // load: closes, UA follows
    EXPECT_TRUE(packet(b, simple(0x00)).error == 0x60);
    EXPECT_TRUE(packet(b, simple(0x00)).status == 0x50);
});

test::Register t_get_configuration("GET CONFIGURATION: header with the current profile, Profile List, Core", [] {
    Bench &b = B("cd");
    Packet all = packet(b, Cdb{0x46, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0});
    EXPECT_TRUE(all.done && all.status == 0x50);
    EXPECT_EQ(all.data.size(), size_t(8 + 12 + 12));
    if (all.data.size() == 32) {
        EXPECT_EQ(int(all.data[3]), 28);                         // data length after its own field
        EXPECT_EQ(int(all.data[6] << 8 | all.data[7]), 0x0010); // DVD-ROM current
        EXPECT_EQ(int(all.data[9]), 0x00);                       // Profile List
        EXPECT_EQ(int(all.data[12] << 8 | all.data[13]), 0x0010);
        EXPECT_EQ(int(all.data[14] & 1), 1);                     // DVD-ROM: current
        EXPECT_EQ(int(all.data[21]), 0x01);                      // Core
        EXPECT_EQ(int(all.data[27]), 0x02);                      // ATAPI
    }
    Packet one = packet(b, Cdb{0x46, 2, 0, 1, 0, 0, 0, 0, 0x20, 0, 0, 0}); // RT 10b: Core only
    EXPECT_TRUE(one.data.size() == 20 && one.data[9] == 0x01);
    Packet cut = packet(b, Cdb{0x46, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0}); // allocation length 8
    EXPECT_EQ(cut.data.size(), size_t(8));
});

// The fault hooks (model/fault): the observer sees each command (a PACKET command by its
// CDB), check_condition fails the command it is armed in, hang silences the drive until a
// COMRESET, a Data FIS answered with R_ERR ends the command in CHECK CONDITION 0B/47/00.
test::Register t_faults("fault hooks: observer, check_condition, hang, R_ERR on a Data FIS", [] {
    Bench &b = B("cdf");
    EXPECT_TRUE(b.comreset().has_value());
    std::vector<CommandSeen> seen;
    bool arm_check = false, arm_hang = false;
    b.dev.set_command_observer([&](const CommandSeen &c) {
        seen.push_back(c);
        if (arm_check && c.packet && c.opcode == 0x28)
            b.dev.inject_check_condition(Sense{3, 0x11, 0}, true, "f0");
        if (arm_hang && c.packet)
            b.dev.inject_hang("f1");
    });
    Packet ok = packet(b, read10(40, 3));
    EXPECT_TRUE(ok.status == 0x50);
    EXPECT_TRUE(seen.size() == 1 && seen[0].packet && seen[0].opcode == 0x28 && seen[0].lba == 40 &&
                seen[0].blocks == 3 && seen[0].seq == 1);
    arm_check = true;
    Packet bad = packet(b, read10(40, 3));
    EXPECT_TRUE(bad.done && bad.status == 0x51 && bad.error == 0x34 && bad.data.empty()); // key 3, ABRT
    arm_check = false;
    check_sense(b, 3, 0x11, 0);
    EXPECT_TRUE(b.tr.count("fault.effect") == 1);
    EXPECT_TRUE(packet(b, read10(40, 3)).data == disc_data(7, 40, 3)); // once
    arm_hang = true;
    Packet hung = packet(b, simple(0x00));
    arm_hang = false;
    EXPECT_TRUE(hung.cdb_requested && !hung.done); // no status: the drive hangs
    EXPECT_TRUE(b.host.next(sc_time(100, SC_MS)) == std::nullopt);
    EXPECT_TRUE(b.comreset().has_value());         // the reset restarts it
    EXPECT_TRUE(packet(b, simple(0x00)).status == 0x50);
    // the host answers the drive's first Data FIS of a PIO read with R_ERR
    link::SataLink::DwordFault d;
    d.from_host = false;
    d.dword = 1;
    b.link.inject_dword_fault(d);
    Packet crc = packet(b, read10(0, 2));
    EXPECT_TRUE(crc.done && crc.status == 0x51 && crc.error == 0xB4);
    check_sense(b, 0xB, 0x47, 0);
    b.dev.clear_faults();
});

} // namespace

int sc_main(int, char *[]) {
    Bench cd("cd", config());
    Bench cdi("cdi", config(CdbDrq::Interrupt));
    Bench cdd("cdd", config(CdbDrq::Within3ms, true));
    Bench cdf("cdf", config());
    benches = {{"cd", &cd}, {"cdi", &cdi}, {"cdd", &cdd}, {"cdf", &cdf}};
    return test::run_all();
}
