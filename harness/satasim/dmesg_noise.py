"""SError bits as the line noise of satasim's faults (the `noise:` flags of unplug, phy_flap,
cominit, lpm_fail and line_noise; docs/hardware.md 2.7, scenarios/README.md). One table of
SError.DIAG/ERR bits (SATA 3.x 14.1.5; AHCI 1.3.1 3.3.12) per noise flag serves every place the
importer reads noise from a report's SError; each place names the flags its fault takes."""
from __future__ import annotations

# SError.DIAG bits of a PHY event: PHYRdyChg (N), CommWake (W), DevExch (X)
N, W, X = 1 << 16, 1 << 18, 1 << 26
PHY_EVENT = N | W | X

# noise flag -> the SError bits that show it, in the order the flags are written
FLAG_BITS = (
    ("cominit", X),                     # COMINIT bursts: DevExch
    ("decode", 1 << 19),                # 10b/8b decode errors: 10B8B
    ("internal", 1 << 11),              # the HBA's receiver losing the signal: HostInt
    ("phy", (1 << 17) | (1 << 8)),      # the host PHY's internal error and its data: PHYInt, UnrecovData
    ("comwake", W),                     # COMWAKE-like bursts: CommWake
)
LINK_NOISE = ("cominit", "decode", "internal")  # what an unplug or a flap carries


def noise_bits(names=LINK_NOISE) -> int:
    """The SError bits of these noise flags."""
    return sum(bits for name, bits in FLAG_BITS if name in names)


def noise_list(serr: int, names=LINK_NOISE) -> str:
    """The noise flags among `names` that SError `serr` shows, as a YAML list ("" for none)."""
    n = [name for name, bits in FLAG_BITS if name in names and serr & bits]
    return "[" + ", ".join(n) + "]" if n else ""


def noise_key(serr: int, names=LINK_NOISE) -> dict:
    """A fault's `noise` key for the flags SError shows, or nothing."""
    n = noise_list(serr, names)
    return {"noise": n} if n else {}
