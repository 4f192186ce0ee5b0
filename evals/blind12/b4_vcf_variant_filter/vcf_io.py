"""Minimal VCF 4.2 reading: header meta lines, INFO typing, per-sample FORMAT fields."""
import re

import numpy as np

_META_RE = re.compile(r'^##(INFO|FORMAT)=<ID=([^,]+),Number=([^,]+),Type=([^,]+),Description="([^"]*)">$')
_GT_SPLIT = re.compile(r"[/|]")
_CASTS = {"Integer": int, "Float": float, "String": str, "Flag": bool}


def parse_header(lines):
    """Returns ({'INFO': {id: (number, cast)}, 'FORMAT': {...}}, sample names)."""
    meta = {"INFO": {}, "FORMAT": {}}
    samples = []
    for line in lines:
        m = _META_RE.match(line)
        if m:
            section, ident, number, typ, _desc = m.groups()
            meta[section][ident] = (number, _CASTS[typ])
        elif line.startswith("#CHROM"):
            samples = line.rstrip("\n").split("\t")[9:]
    return meta, samples


def parse_info(field, info_meta):
    out = {}
    if field == ".":
        return out
    for item in field.split(";"):
        key, eq, value = item.partition("=")
        number, cast = info_meta.get(key, (".", str))
        if not eq:
            out[key] = True
        elif number == "1":
            out[key] = cast(value)
        else:
            out[key] = [cast(v) for v in value.split(",")]
    return out


def parse_genotype(gt):
    """'0/1' -> (0, 1); '1|1' -> (1, 1); './.' -> None. Alleles above 1 count as alternate."""
    alleles = _GT_SPLIT.split(gt)
    if any(a == "." for a in alleles):
        return None
    return tuple(int(a) for a in alleles)


def parse_record(line, meta):
    cols = line.rstrip("\n").split("\t")
    chrom, pos, vid, ref, alt, qual, filt, info, fmt = cols[:9]
    keys = fmt.split(":")
    calls = []
    for entry in cols[9:]:
        values = entry.split(":")
        call = dict(zip(keys, values))
        call["GT"] = parse_genotype(call["GT"])
        call["GQ"] = int(call["GQ"]) if call.get("GQ", ".") != "." else None
        call["DP"] = int(call["DP"]) if call.get("DP", ".") != "." else 0
        call["AD"] = [int(x) for x in call["AD"].split(",")] if call.get("AD", ".") != "." else None
        calls.append(call)
    return {
        "chrom": chrom, "pos": int(pos), "id": vid, "ref": ref, "alt": alt.split(","),
        "qual": float(qual) if qual != "." else None, "filter": filt,
        "info": parse_info(info, meta["INFO"]), "calls": calls,
    }


def simulate_vcf(rng, num_variants, num_samples, contig):
    """A joint-called cohort VCF as text: header + one line per site."""
    header = [
        "##fileformat=VCFv4.2",
        '##INFO=<ID=AC,Number=A,Type=Integer,Description="Allele count in genotypes">',
        '##INFO=<ID=AN,Number=1,Type=Integer,Description="Total number of alleles in called genotypes">',
        '##INFO=<ID=DP,Number=1,Type=Integer,Description="Approximate read depth">',
        '##INFO=<ID=MQ,Number=1,Type=Float,Description="RMS mapping quality">',
        '##INFO=<ID=QD,Number=1,Type=Float,Description="Variant confidence by depth">',
        '##INFO=<ID=FS,Number=1,Type=Float,Description="Fisher strand bias">',
        '##INFO=<ID=SOR,Number=1,Type=Float,Description="Symmetric odds ratio strand bias">',
        '##INFO=<ID=DB,Number=0,Type=Flag,Description="dbSNP membership">',
        '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
        '##FORMAT=<ID=AD,Number=R,Type=Integer,Description="Allelic depths">',
        '##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Read depth">',
        '##FORMAT=<ID=GQ,Number=1,Type=Integer,Description="Genotype quality">',
        "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t"
        + "\t".join(f"S{i:04d}" for i in range(num_samples)),
    ]
    bases = "ACGT"
    lines = []
    pos = 100000
    for v in range(num_variants):
        pos += int(rng.integers(20, 400))
        good = rng.random() < 0.7
        ref = bases[rng.integers(4)]
        kind = rng.random()
        if kind < 0.8:
            alt = [b for b in bases if b != ref][rng.integers(3)]
        elif kind < 0.93:
            alt = ref + "".join(bases[i] for i in rng.integers(0, 4, size=int(rng.integers(1, 5))))
        else:
            alt = "{0},{1}".format(*[b for b in bases if b != ref][:2])
        n_alt = alt.count(",") + 1
        p = float(rng.beta(0.6, 2.5)) if good else float(rng.uniform(0.02, 0.6))
        dosage = rng.binomial(2, p, size=num_samples)
        if not good:  # excess heterozygosity from mis-mapping
            dosage = np.where(rng.random(num_samples) < 0.35, 1, dosage)
        missing = rng.random(num_samples) < (0.03 if good else 0.15)
        depth = rng.poisson(28 if good else 14, size=num_samples)
        gq = np.minimum(99, rng.poisson(60 if good else 25, size=num_samples))
        phased = rng.random(num_samples) < 0.2
        alt_reads = rng.binomial(depth, dosage / 2 * (0.95 if good else 0.7))
        entries = []
        an = ac = 0
        for s in range(num_samples):
            if missing[s]:
                entries.append("./.:.:0:.")
                continue
            d = int(dosage[s])
            sep = "|" if phased[s] else "/"
            a2 = 1 if n_alt == 1 or d < 2 else 2
            gt = ("0" + sep + "0", "0" + sep + "1", "1" + sep + str(a2))[d]
            ad = f"{depth[s] - alt_reads[s]},{alt_reads[s]}" + (",0" if n_alt == 2 else "")
            entries.append(f"{gt}:{ad}:{depth[s]}:{gq[s]}")
            an += 2
            ac += d
        qual = float(rng.gamma(4.0, 120.0 if good else 25.0))
        info = [f"AC={ac}" + (",0" if n_alt == 2 else ""), f"AN={an}", f"DP={int(depth.sum())}",
                f"MQ={rng.normal(59.5 if good else 45.0, 2.0 if good else 8.0):.2f}",
                f"QD={qual / max(1, depth.sum()) * 10:.2f}",
                f"FS={rng.exponential(2.0 if good else 18.0):.3f}",
                f"SOR={rng.exponential(0.7 if good else 2.5):.3f}"]
        if rng.random() < (0.6 if good else 0.2):
            info.append("DB")
        flip = rng.random() < 0.08
        filt = "PASS" if good != flip else rng.choice(["LowQual", "StrandBias", "LowQual;ExcessHet"])
        lines.append("\t".join([contig, str(pos), ".", ref, alt, f"{qual:.1f}", filt, ";".join(info), "GT:AD:DP:GQ"]
                               + entries))
    return header, lines
