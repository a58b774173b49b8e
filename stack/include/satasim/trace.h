/* Structured events the stack hands to the platform's trace sink.
 *
 * One event is both a JSON-lines trace record (name + fields) and, when msg is set,
 * a line of the human log in libata's wording. The backend adds the simulated time,
 * the sequence number and the "ataN" / "ataN.DD" / "ataN.PP" prefix from the address.
 */
#ifndef SATASIM_TRACE_H
#define SATASIM_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sata_trace_class {
    SATA_TC_DECISION = 0, /* probe/EH decisions and results: the golden-trace subset */
    SATA_TC_INFO = 1,     /* other state the user sees (configuration, link status) */
    SATA_TC_CMD = 2,      /* per-command issue/complete: high volume, filterable */
};

enum sata_log_level {
    SATA_LOG_NONE = 0, /* trace only, no human log line */
    SATA_LOG_DEBUG = 1,
    SATA_LOG_INFO = 2,
    SATA_LOG_WARN = 3,
    SATA_LOG_ERR = 4,
    /* the next line of the message before it, from the same address: libata prints some
     * reports with one printk and an embedded newline ("cmd ...\n         res ..."), and the
     * kernel log shows the second line without a prefix, indented. The human log does the
     * same; the trace keeps it a record of its own. */
    SATA_LOG_CONT = 5,
};

enum sata_trace_field_type {
    SATA_TF_INT = 0, /* signed decimal */
    SATA_TF_HEX = 1, /* rendered "0x%x" string in JSON */
    SATA_TF_STR = 2,
    SATA_TF_BOOL = 3,
};

struct sata_trace_field {
    const char *key;
    enum sata_trace_field_type type;
    int64_t i;
    const char *s;
};

/* Address: port is 0-based (log name ata<port+1>); link is the PMP fan-out port or -1
 * for the host link; dev is the device number on its link or -1 for a link/port event. */
struct sata_trace_event {
    const char *name; /* dotted, stable: "probe.link_up", "eh.reset", "qc.done" */
    enum sata_trace_class cls;
    enum sata_log_level level;
    int port;
    int link;
    int dev;
    const char *msg; /* human log text without prefix, or NULL */
    unsigned n_fields;
    const struct sata_trace_field *fields;
};

#ifdef __cplusplus
}
#endif

#endif
