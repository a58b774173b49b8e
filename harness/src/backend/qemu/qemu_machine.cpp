#include "backend/qemu/qemu_machine.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model/atapi/mmc.h"

namespace satasim::harness {

namespace {

constexpr uint16_t kVendorIntel = 0x8086;
constexpr uint16_t kIch9Ahci = 0x2922;
constexpr uint64_t kPollSliceNs = 1000000; // longest single wait on the socket
constexpr uint64_t kQuickPollNs = 100000;  // then check whether QEMU is quiescent

// QEMU's -device option syntax: a comma inside a value is written twice.
std::string qemu_opt(const std::string &s) {
    std::string o;
    for (char c : s) {
        o += c;
        if (c == ',')
            o += ',';
    }
    return o;
}

uint64_t wall_ns() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

} // namespace

std::string qemu_binary() {
    const char *e = std::getenv("SATASIM_QEMU");
    return e && *e ? e : "qemu-system-x86_64";
}

QemuMachine::QemuMachine(const Scenario &sc, const std::string &work_dir, uint32_t port_mask)
    : work_dir_(work_dir), mem_(kDmaBase, kDmaLimit) {
    for (unsigned p = 0; p < 6; ++p)
        if (port_mask == 0 || (port_mask >> p & 1u)) {
            busy_regs_.push_back(kAbar + 0x100 + 0x80 * p + 0x38); // PxCI
            busy_regs_.push_back(kAbar + 0x100 + 0x80 * p + 0x34); // PxSACT
        }
    std::vector<std::string> args = {"-m", "2048"};
    const char *dma_env = std::getenv("SATASIM_QEMU_DMA");
    if (dma_env && std::string(dma_env) == "qtest") {
        args.insert(args.end(), {"-machine", "q35"});
    } else {
        // Guest RAM as a shared file both processes map (sparse: only touched pages count).
        ram_size_ = size_t(2048) << 20;
        ram_path_ = work_dir + "/guest-ram";
        int fd = ::open(ram_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || ::ftruncate(fd, off_t(ram_size_)) != 0) {
            std::string err = std::strerror(errno);
            if (fd >= 0)
                ::close(fd);
            throw QtestError("cannot create the guest RAM file " + ram_path_ + ": " + err);
        }
        void *m = ::mmap(nullptr, ram_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ::close(fd);
        if (m == MAP_FAILED)
            throw QtestError("cannot map the guest RAM file " + ram_path_ + ": " + std::strerror(errno));
        ram_ = static_cast<uint8_t *>(m);
        args.insert(args.end(), {"-object",
                                 "memory-backend-file,id=satasim-ram,size=2048M,share=on,mem-path=" +
                                     qemu_opt(ram_path_),
                                 "-machine", "q35,memory-backend=satasim-ram"});
    }
    for (const DeviceSpec &d : sc.devices) {
        if (d.atapi) {
            // An ide-cd on the port's bus with the scenario's disc as a raw image of 2048-byte
            // blocks (what an ISO file is), or empty (atapi.medium false).
            const std::string id = "cd" + std::to_string(d.port);
            Cdrom cd;
            cd.qdev = id + "dev";
            std::string drive = "if=none,id=" + id + ",media=cdrom";
            if (d.atapi->medium) {
                drive += ",driver=raw,file.driver=file,file.filename=" +
                         qemu_opt(write_disc_image(id, d.atapi->disc_seed, d.atapi->disc_blocks)) +
                         ",rerror=report";
                cd.seed = d.atapi->disc_seed;
                cd.inserted = true;
            }
            cdroms_[d.port] = cd;
            args.insert(args.end(), {"-drive", drive, "-device",
                                     "ide-cd,id=" + cd.qdev + ",drive=" + id + ",bus=ide." + std::to_string(d.port) +
                                         ",model=" + qemu_opt(d.model) + ",serial=" + qemu_opt(d.serial) +
                                         ",ver=" + qemu_opt(d.firmware)});
            continue;
        }
        std::string img = work_dir + "/disk" + std::to_string(d.port) + ".img";
        int fd = ::open(img.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || ::ftruncate(fd, off_t(d.capacity * 512)) != 0) {
            std::string err = std::strerror(errno);
            if (fd >= 0)
                ::close(fd);
            throw QtestError("cannot create the sparse disk image " + img + ": " + err);
        }
        ::close(fd);
        images_.push_back(img);
        std::string id = "d" + std::to_string(d.port);
        args.push_back("-drive");
        if (d.blkdebug.empty()) {
            args.push_back("if=none,id=" + id + ",driver=raw,file.driver=file,file.filename=" + qemu_opt(img) +
                           ",rerror=report,werror=report");
        } else {
            // blkdebug under the raw format driver (it only fires with a format driver above
            // it); every rule names its I/O type so that a fired rule hits nothing else.
            std::string conf = work_dir + "/blkdebug" + std::to_string(d.port) + ".conf";
            std::string text;
            for (const BlkdebugRule &r : d.blkdebug) {
                const char *event = r.op == BlkdebugOp::Read    ? "read_aio"
                                    : r.op == BlkdebugOp::Write ? "write_aio"
                                                                : "flush_to_disk";
                const char *iotype = r.op == BlkdebugOp::Read    ? "read"
                                     : r.op == BlkdebugOp::Write ? "write"
                                                                 : "flush";
                text += "[inject-error]\nevent = \"" + std::string(event) + "\"\niotype = \"" + iotype +
                        "\"\nerrno = \"" + std::to_string(r.err) + "\"\nonce = \"" + (r.once ? "on" : "off") +
                        "\"\nimmediately = \"off\"\n";
                if (r.lba >= 0)
                    text += "sector = \"" + std::to_string(r.lba) + "\"\n";
                text += "\n";
            }
            FILE *cf = std::fopen(conf.c_str(), "w");
            if (!cf || std::fputs(text.c_str(), cf) < 0 || std::fclose(cf) != 0)
                throw QtestError("cannot write the blkdebug config " + conf);
            images_.push_back(conf);
            args.push_back("if=none,id=" + id + ",driver=raw,file.driver=blkdebug,file.config=" + qemu_opt(conf) +
                           ",file.image.driver=file,file.image.filename=" + qemu_opt(img) +
                           ",rerror=report,werror=report");
        }
        args.push_back("-device");
        args.push_back("ide-hd,drive=" + id + ",bus=ide." + std::to_string(d.port) + ",model=" + qemu_opt(d.model) +
                       ",serial=" + qemu_opt(d.serial) + ",ver=" + qemu_opt(d.firmware));
    }
    if (!cdroms_.empty()) // the tray events go through QMP
        args.insert(args.end(), {"-qmp", qmp_.listen(work_dir)});
    client_.set_irq_handler([this](int line, bool level) { on_irq(line, level); });
    client_.start(qemu_binary(), args, work_dir);
    require_ok();
    if (!cdroms_.empty())
        qmp_.accept();

    // Find the AHCI function on bus 0.
    int found_dev = -1, found_fn = -1;
    for (unsigned dev = 0; dev < 32 && found_dev < 0; ++dev)
        for (unsigned fn = 0; fn < 8; ++fn) {
            uint32_t id = pci_read(dev, fn, 0);
            require_ok();
            if ((id & 0xffff) == 0xffff) {
                if (fn == 0)
                    break;
                continue;
            }
            if ((id & 0xffff) == kVendorIntel && (id >> 16) == kIch9Ahci) {
                found_dev = int(dev);
                found_fn = int(fn);
                break;
            }
        }
    if (found_dev < 0)
        throw QtestError("qemu/qtest: no AHCI function 8086:2922 found on PCI bus 0 of the q35 machine");
    unsigned dv = unsigned(found_dev), fn = unsigned(found_fn);
    dev_ = dv;
    fn_ = fn;
    // The firmware's part (no BIOS runs under -S): BAR5 = ABAR, Interrupt Line = the IOAPIC
    // input its INTx reaches. Enabling decode and bus mastering is the driver's: the stack's
    // PCI probe does it through pci_config_write; directed steps have no driver, so here.
    pci_write(dv, fn, 0x24, uint32_t(kAbar));
    pci_write(dv, fn, 0x20, kIdpPort); // BAR4, the index/data pair (I/O): off the ISA ports
    pci_write(dv, fn, 0x3c, (pci_read(dv, fn, 0x3c) & ~0xffu) | unsigned(kIrqLine));
    if (!sc.host.stack) {
        uint32_t cmd = pci_read(dv, fn, 0x04) & 0xffff;
        cmd |= 0x0006;   // memory space, bus master
        cmd &= ~0x0400u; // INTx enabled
        pci_write(dv, fn, 0x04, cmd);
    }
    uint32_t bar = pci_read(dv, fn, 0x24);
    require_ok();
    if ((bar & ~0xfu) != uint32_t(kAbar))
        throw QtestError("qemu/qtest: BAR5 of 00:" + std::to_string(dv) + "." + std::to_string(fn) +
                         " reads back " + std::to_string(bar) + " after programming the ABAR");
    char buf[96];
    std::snprintf(buf, sizeof buf, "00:%02x.%u 8086:2922 ABAR 0x%llx", dv, fn, (unsigned long long)kAbar);
    pci_summary_ = buf;
    client_.irq_intercept_in("ioapic");
    require_ok();
}

void QemuMachine::require_ok() {
    if (!client_.ok())
        throw QtestError(client_.error());
}

QemuMachine::~QemuMachine() { shutdown(); }

void QemuMachine::shutdown() {
    client_.shutdown();
    if (ram_) {
        ::munmap(ram_, ram_size_);
        ram_ = nullptr;
    }
    if (!ram_path_.empty()) {
        ::unlink(ram_path_.c_str());
        ram_path_.clear();
    }
    for (const std::string &img : images_)
        ::unlink(img.c_str());
    images_.clear();
}

uint32_t QemuMachine::pci_read(unsigned dev, unsigned fn, unsigned reg) {
    client_.outl(0xcf8, 0x80000000u | dev << 11 | fn << 8 | (reg & 0xfc));
    return client_.inl(0xcfc);
}

void QemuMachine::pci_write(unsigned dev, unsigned fn, unsigned reg, uint32_t val) {
    client_.outl(0xcf8, 0x80000000u | dev << 11 | fn << 8 | (reg & 0xfc));
    client_.outl(0xcfc, val);
}

uint32_t QemuMachine::pci_config_read(unsigned off, unsigned size) {
    if (lost_ || !check_alive())
        return 0xffffffffu;
    const uint32_t v = pci_read(dev_, fn_, off & 0xfc) >> 8 * (off & 3);
    return size >= 4 ? v : v & ((1u << 8 * size) - 1);
}

void QemuMachine::pci_config_write(unsigned off, unsigned size, uint32_t val) {
    if (lost_ || !check_alive())
        return;
    if (size >= 4) {
        pci_write(dev_, fn_, off & 0xfc, val);
        return;
    }
    const unsigned sh = 8 * (off & 3);
    const uint32_t mask = ((1u << 8 * size) - 1) << sh;
    uint32_t old = pci_read(dev_, fn_, off & 0xfc);
    if ((off & 0xfc) == 0x04)
        old &= 0xffffu; // Status (06h) is write-one-to-clear: the merge writes it 0
    pci_write(dev_, fn_, off & 0xfc, (old & ~mask) | ((val << sh) & mask));
}

bool QemuMachine::check_alive() {
    if (!client_.ok())
        lose(client_.error());
    return !lost_;
}

void QemuMachine::lose(const std::string &reason) {
    if (lost_)
        return;
    lost_ = true;
    if (on_lost_)
        on_lost_(reason);
}

uint32_t QemuMachine::mmio_read32(uint32_t off) {
    if (lost_)
        return 0xffffffffu; // master abort: nothing answers at the BAR any more
    uint32_t v = client_.readl(kAbar + off);
    return check_alive() ? v : 0xffffffffu;
}

void QemuMachine::mmio_write32(uint32_t off, uint32_t val) {
    if (lost_)
        return;
    client_.writel(kAbar + off, val);
    check_alive();
}

// Narrow accesses go to QEMU as they are (qtest readb/readw/writeb/writew): its device
// models decode byte enables themselves.
uint8_t QemuMachine::mmio_read8(uint32_t off) {
    if (lost_)
        return 0xff;
    uint8_t v = client_.readb(kAbar + off);
    return check_alive() ? v : 0xff;
}

uint16_t QemuMachine::mmio_read16(uint32_t off) {
    if (lost_)
        return 0xffff;
    uint16_t v = client_.readw(kAbar + off);
    return check_alive() ? v : 0xffff;
}

void QemuMachine::mmio_write8(uint32_t off, uint8_t val) {
    if (lost_)
        return;
    client_.writeb(kAbar + off, val);
    check_alive();
}

void QemuMachine::mmio_write16(uint32_t off, uint16_t val) {
    if (lost_)
        return;
    client_.writew(kAbar + off, val);
    check_alive();
}

void QemuMachine::to_device(uint64_t bus, const void *cpu, size_t len) {
    if (lost_)
        return;
    if (!ram_) {
        client_.write_mem(bus, cpu, len);
        check_alive();
        return;
    }
    if (bus >= ram_size_ || len > ram_size_ - bus)
        return lose("DMA sync to device beyond guest RAM (bus 0x" + std::to_string(bus) + ")");
    std::memcpy(ram_ + bus, cpu, len);
    __atomic_thread_fence(__ATOMIC_RELEASE); // before the MMIO write that hands it to QEMU
}

void QemuMachine::to_cpu(uint64_t bus, void *cpu, size_t len) {
    if (!lost_ && !ram_) {
        client_.read_mem(bus, cpu, len);
        check_alive();
    } else if (!lost_ && (bus >= ram_size_ || len > ram_size_ - bus)) {
        lose("DMA sync for CPU beyond guest RAM (bus 0x" + std::to_string(bus) + ")");
    } else if (!lost_) {
        __atomic_thread_fence(__ATOMIC_ACQUIRE); // after the interrupt/MMIO read that said it is done
        std::memcpy(cpu, ram_ + bus, len);
    }
    if (lost_)
        std::memset(cpu, 0xff, len);
}

void QemuMachine::on_irq(int line, bool level) {
    if (line != kIrqLine)
        return;
    irq_level_ = level;
    if (!defer_irq_)
        irq_.set(level);
}

void QemuMachine::apply_irq() { irq_.set(irq_level_); }

bool QemuMachine::quiescent() {
    if (lost_)
        return true;
    std::vector<uint32_t> busy = client_.readl_many(busy_regs_);
    if (!check_alive())
        return true; // nothing will ever come from it
    for (uint32_t x : busy)
        if (x)
            return false;
    return irq_level_ == irq_.level();
}

std::string QemuMachine::write_disc_image(const std::string &name, uint64_t seed, uint32_t blocks) {
    const std::string img = work_dir_ + "/" + name + "-" + std::to_string(images_written_++) + ".iso";
    FILE *f = std::fopen(img.c_str(), "wb");
    if (!f)
        throw QtestError("cannot create the disc image " + img + ": " + std::strerror(errno));
    images_.push_back(img);
    std::vector<uint8_t> chunk(size_t(64) * atapi::kBlockSize);
    bool ok = true;
    for (uint32_t lba = 0; lba < blocks && ok;) {
        const uint32_t n = std::min<uint32_t>(64, blocks - lba);
        for (uint32_t i = 0; i < n; ++i)
            atapi::disc_block(seed, lba + i, chunk.data() + size_t(i) * atapi::kBlockSize);
        ok = std::fwrite(chunk.data(), atapi::kBlockSize, n, f) == n;
        lba += n;
    }
    if (std::fclose(f) != 0 || !ok)
        throw QtestError("cannot write the disc image " + img + ": " + std::strerror(errno));
    return img;
}

// Reads the drive's tray and medium from QEMU's query-block (its entry names the qdev id).
bool QemuMachine::refresh_cdrom(Cdrom &cd) {
    std::string answer, why;
    if (!qmp_.execute("query-block", "", &answer, &why)) {
        tray_error_ = why;
        return false;
    }
    for (const std::string &o : qmp_return_objects(answer))
        if (qmp_field(o, "qdev") == cd.qdev) {
            cd.tray_open = qmp_field(o, "tray_open") == std::string("true");
            cd.inserted = qmp_field(o, "inserted").has_value();
            return true;
        }
    tray_error_ = "query-block has no entry for " + cd.qdev;
    return false;
}

bool QemuMachine::tray_event(unsigned port, const std::string &action, uint64_t seed, uint32_t blocks) {
    auto it = cdroms_.find(port);
    if (lost_ || it == cdroms_.end())
        return false;
    Cdrom &cd = it->second;
    const std::string id = "{\"id\": \"" + cd.qdev + "\"";
    std::string answer, why, image;
    bool ok = false;
    if (action == "open") // without force: a locked medium only gets an eject request
        ok = qmp_.execute("blockdev-open-tray", id + "}", &answer, &why);
    else if (action == "close")
        ok = qmp_.execute("blockdev-close-tray", id + "}", &answer, &why);
    else if (action == "remove")
        ok = qmp_.execute("blockdev-remove-medium", id + "}", &answer, &why);
    else if (action == "change") {
        try {
            image = write_disc_image("cd" + std::to_string(port), seed, blocks);
        } catch (const QtestError &e) {
            tray_error_ = e.what();
            return false;
        }
        std::string path;
        for (char c : image) { // a JSON string
            if (c == '"' || c == '\\')
                path += '\\';
            path += c;
        }
        ok = qmp_.execute("blockdev-change-medium", id + ", \"filename\": \"" + path + "\", \"format\": \"raw\"}",
                          &answer, &why);
    } else
        return false;
    if (!ok)
        tray_error_ = why;
    if (!refresh_cdrom(cd))
        return false;
    if (ok && action == "change")
        cd.seed = seed;
    if (action == "open")
        return cd.tray_open; // blockdev-open-tray answers success for a locked medium too
    return ok;
}

std::optional<uint64_t> QemuMachine::disc_seed(unsigned port) const {
    auto it = cdroms_.find(port);
    if (it == cdroms_.end() || !it->second.inserted || it->second.tray_open)
        return std::nullopt;
    return it->second.seed;
}

bool QemuMachine::wait_async(uint64_t timeout_ns) {
    if (lost_)
        return false;
    bool irq = client_.poll_async(timeout_ns);
    return check_alive() && irq;
}

// ---- poller ----

QemuPoller::QemuPoller(sc_core::sc_module_name name, QemuMachine &m) : sc_core::sc_module(name), m_(m) {
    SC_THREAD(run);
}

void QemuPoller::run() {
    const uint64_t ps_per_ns = uint64_t(sc_core::sc_time(1, sc_core::SC_NS).value());
    for (;;) {
        if (sc_core::sc_pending_activity_at_current_time()) {
            sc_core::wait(sc_core::SC_ZERO_TIME);
            continue;
        }
        // Nothing can run now: wait for QEMU, at most until the next timed event.
        uint64_t next_ns = uint64_t(sc_core::sc_time_to_pending_activity().value()) / ps_per_ns;
        uint64_t budget = std::max<uint64_t>(1, std::min(next_ns, kPollSliceNs));
        ++polls_;
        m_.set_defer_irq(true);
        uint64_t t0 = wall_ns();
        bool irq = m_.wait_async(std::min(budget, kQuickPollNs));
        uint64_t adv = 0;
        if (!irq && budget > kQuickPollNs) {
            if (m_.quiescent())
                adv = std::max<uint64_t>(1, next_ns); // nothing can come from QEMU: skip ahead
            else
                irq = m_.wait_async(budget - std::min(budget, wall_ns() - t0));
        }
        uint64_t waited = wall_ns() - t0;
        m_.set_defer_irq(false);
        waited_ns_ += waited;
        if (!adv)
            adv = irq ? std::min(std::max<uint64_t>(waited, 1), budget) : std::max(budget, std::min(waited, next_ns));
        sc_core::wait(sc_core::sc_time::from_value(sc_dt::uint64(adv) * ps_per_ns));
        m_.apply_irq();
    }
}

} // namespace satasim::harness
