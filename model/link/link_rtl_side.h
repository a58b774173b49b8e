// The transport side of one verilated sata_link instance, driven from and collected into
// a LinkRtlPair::Side, around one rising edge: the pair (link_rtl.cpp: ports h_* / d_*)
// and the RTL backend's device-side link (one instance: inputs i_*, outputs o_*) share
// it. m: the verilated model's root or wrapper; IN / OUT: its input / output port prefix.
#pragma once

#define SATASIM_LINK_SIDE_DRIVE(m, IN, s)                                                           \
    m.IN##tx_req = s.tx_req;                                                                        \
    if (s.tx_pos < s.tx.size() && s.tx_pos < s.tx_avail) {                                          \
        m.IN##tx_valid = 1;                                                                         \
        m.IN##tx_data = s.tx[s.tx_pos];                                                             \
        m.IN##tx_last = s.tx_pos + 1 == s.tx.size();                                                \
    } else {                                                                                        \
        m.IN##tx_valid = 0;                                                                         \
        m.IN##tx_last = 0;                                                                          \
    }                                                                                               \
    m.IN##rx_full = s.rx_full;                                                                      \
    m.IN##rx_dmat = s.rx_dmat;                                                                      \
    m.IN##rx_verdict = s.verdict;                                                                   \
    m.IN##rx_accept = s.accept;

#define SATASIM_LINK_SIDE_COLLECT(m, OUT, s)                                                        \
    if (m.OUT##tx_pop)                                                                              \
        ++s.tx_pos;                                                                                 \
    if (m.OUT##rx_sof) {                                                                            \
        s.rx.clear();                                                                               \
        s.rx_end = s.rx_crc_ok = s.rx_abort = false;                                                \
        ++s.rx_frames;                                                                              \
    }                                                                                               \
    if (m.OUT##rx_valid)                                                                            \
        s.rx.push_back(m.OUT##rx_data);                                                             \
    if (m.OUT##rx_end) {                                                                            \
        s.rx_end = true;                                                                            \
        s.rx_crc_ok = m.OUT##rx_crc_ok;                                                             \
        if (s.auto_verdict)                                                                         \
            s.verdict = true;                                                                       \
    }                                                                                               \
    if (m.OUT##rx_abort)                                                                            \
        s.rx_abort = true;                                                                          \
    if (m.OUT##tx_done) {                                                                           \
        s.tx_done = true;                                                                           \
        s.tx_req = false;                                                                           \
        s.tx_status = m.OUT##tx_status;                                                             \
        s.tx_dmat = m.OUT##tx_dmat;                                                                 \
    }                                                                                               \
    if (m.OUT##bad_prim)                                                                            \
        ++s.bad_prims;
