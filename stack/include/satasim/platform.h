/* The stack's only door to hardware and time.
 *
 * Every backend (the SystemC simulator, later QEMU over qtest) implements this table.
 * The stack never names SystemC, C++, QEMU or a model class; it sees one controller
 * register window through 32-bit MMIO (and 8/16-bit accesses for byte-wide registers),
 * DMA-able memory, one interrupt line, a monotonic clock,
 * sleeps, completions and a way to wake its EH context.
 *
 * Contexts, as in a kernel:
 *   - process context: the I/O submitters and the EH context. May sleep and wait.
 *   - interrupt context: the handler registered with request_irq. Must not sleep;
 *     backends assert on any blocking call made from it.
 */
#ifndef SATASIM_PLATFORM_H
#define SATASIM_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sata_platform; /* backend-owned context, opaque to the stack */
struct plat_completion; /* backend-owned one-shot wait object */
struct sata_trace_event;

/* One DMA-able buffer: the stack writes through cpu, the controller sees bus. */
struct plat_dma_buf {
    void *cpu;
    uint64_t bus;
    size_t size;
};

/* An interrupt handler returns nonzero if the interrupt was its device's (the kernel's
 * IRQ_HANDLED), 0 if not (IRQ_NONE): the backend's interrupt core counts the unhandled ones
 * as the kernel's does (a line that keeps firing unhandled is disabled and then polled). */
typedef int (*plat_irq_handler_fn)(void *arg);

struct sata_platform_ops {
    /* MMIO on the controller's register BAR; off is a byte offset, 4-byte aligned. */
    uint32_t (*mmio_read32)(struct sata_platform *p, uint32_t off);
    void (*mmio_write32)(struct sata_platform *p, uint32_t off, uint32_t val);

    /* DMA memory. align is a power of two. Returns 0 or a negative errno. */
    int (*dma_alloc)(struct sata_platform *p, size_t size, size_t align,
                     struct plat_dma_buf *out);
    void (*dma_free)(struct sata_platform *p, struct plat_dma_buf *buf);
    /* Ownership hand-over, as dma_sync_single_for_{device,cpu}: a backend whose device
     * memory is not the CPU's (QEMU guest RAM) copies here; the simulator does nothing. */
    void (*dma_sync_for_device)(struct sata_platform *p, const struct plat_dma_buf *buf,
                                size_t off, size_t len);
    void (*dma_sync_for_cpu)(struct sata_platform *p, const struct plat_dma_buf *buf,
                             size_t off, size_t len);

    /* The controller's (level) interrupt line. The handler runs in interrupt context. */
    int (*request_irq)(struct sata_platform *p, plat_irq_handler_fn fn, void *arg);
    void (*free_irq)(struct sata_platform *p);

    /* Time. now_ns is monotonic simulated (or host) time; sleep_ns blocks the caller. */
    uint64_t (*now_ns)(struct sata_platform *p);
    void (*sleep_ns)(struct sata_platform *p, uint64_t ns);

    /* Completions: one waiter, many completers. complete() may run in interrupt context.
     * wait returns true if completed before timeout_ns elapsed (0 = already-done check,
     * UINT64_MAX = forever); reinit makes a used completion waitable again. */
    struct plat_completion *(*completion_create)(struct sata_platform *p);
    void (*completion_destroy)(struct sata_platform *p, struct plat_completion *c);
    void (*completion_reinit)(struct sata_platform *p, struct plat_completion *c);
    void (*complete)(struct sata_platform *p, struct plat_completion *c);
    bool (*wait_for_completion_timeout)(struct sata_platform *p, struct plat_completion *c,
                                        uint64_t timeout_ns);

    /* Command timers: arm a one-shot callback at now + delay_ns, run in interrupt
     * context. Returns a handle > 0; cancel is harmless on a fired or cancelled handle. */
    uint64_t (*timer_arm)(struct sata_platform *p, uint64_t delay_ns,
                          void (*fn)(void *arg), void *arg);
    void (*timer_cancel)(struct sata_platform *p, uint64_t handle);

    /* Wake the host's EH context; the backend then calls ata_host_eh_run() there.
     * Idempotent while a run is pending. Used only by a backend without schedule_port_eh. */
    void (*schedule_eh)(struct sata_platform *p);

    /* Locks where a kernel needs them (port lock, irqsave). No-ops under cooperative
     * scheduling; kept so the code stays honest about its contexts. */
    void (*lock)(struct sata_platform *p);
    void (*unlock)(struct sata_platform *p);

    /* Structured trace / log sink (see trace.h). */
    void (*trace)(struct sata_platform *p, const struct sata_trace_event *ev);

    /* Narrow accesses to the same register window, for byte-wide registers (an SFF
     * taskfile) and the 16-bit PIO data register; off is aligned to the access size. A
     * controller's I/O-port BARs are mapped into the window like its memory BARs (the
     * model documents where), so these serve port I/O as well. Last in the table so the
     * entries above keep their places. */
    uint8_t (*mmio_read8)(struct sata_platform *p, uint32_t off);
    uint16_t (*mmio_read16)(struct sata_platform *p, uint32_t off);
    void (*mmio_write8)(struct sata_platform *p, uint32_t off, uint8_t val);
    void (*mmio_write16)(struct sata_platform *p, uint32_t off, uint16_t val);
    /* The CPU's view of [bus, bus+len) of memory from dma_alloc, as the kernel's sg_virt:
     * for data the CPU moves itself (PIO through a data register). NULL if not mapped. */
    void *(*dma_cpu_addr)(struct sata_platform *p, uint64_t bus, size_t len);
    /* Wake port_no's own EH context; the backend then calls ata_port_eh_run(h, port_no)
     * there. libata gives every port an EH thread of its own (each port is a SCSI host), so
     * one port's recovery -- its boot probe above all -- never waits for another's.
     * Idempotent while that port's run is pending. NULL: the backend has the one host EH
     * context of schedule_eh, which runs every port in turn. */
    void (*schedule_port_eh)(struct sata_platform *p, unsigned port_no);
    /* The controller's PCI function: configuration cycles (PCI Local Bus 3.0 chapter 6; size
     * 1, 2 or 4 at an offset aligned to it). A read nothing answers returns all ones. NULL: a
     * platform without configuration space (the stack's PCI probe then refuses). */
    uint32_t (*pci_config_read)(struct sata_platform *p, unsigned off, unsigned size);
    void (*pci_config_write)(struct sata_platform *p, unsigned off, unsigned size, uint32_t val);
    /* MSI (PCI 3.0 6.8): the message the host's interrupt controller wants for this function
     * (address, data) and the interrupt number the kernel would give it; from then on the
     * handler of request_irq runs on each message the function writes instead of on the INTx
     * line. 0, or -ENOTSUP where the platform delivers no messages (the stack keeps INTx). */
    int (*msi_setup)(struct sata_platform *p, uint64_t *address, uint32_t *data, unsigned *irq);
};

#ifdef __cplusplus
}
#endif

#endif
