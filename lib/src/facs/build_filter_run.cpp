// facs build-filter: one filter per reference file (or per FASTA record), appended to a .bf container.
#include "bloomseq/facs/build_filter_run.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/app/progress.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/interleaved_builder.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {

namespace {
uint64_t popcount_words(const uint64_t* w, uint64_t n) {
  uint64_t c = 0;
  for (uint64_t i = 0; i < n; ++i) c += uint64_t(__builtin_popcountll(w[i]));
  return c;
}
}  // namespace

std::string file_stem(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".bgz", ".fa", ".fasta", ".fna", ".ffn", ".fas", ".fq", ".fastq", ".2bit"}) {
    const size_t n = std::strlen(ext);
    if (s.size() > n && s.compare(s.size() - n, n, ext) == 0) s.resize(s.size() - n);
  }
  return s;
}

// One function: the container, the names taken, the progress display and the auto-tune plan are shared by the
// per-reference step (the `add` lambda), the container write and the JSON report.
BuildFilterReport run_build_filter(const BuildFilterRequest& o, const FacsSinks& sinks) {
  std::FILE* const log = sinks.log;
  // References are checked to be DNA or RNA as they are read (a protein record is refused); other characters that
  // no nucleotide code has are read as N, and said so once per file.
  auto warn_foreign = [&](const std::string& path, const ForeignLetters& foreign) {
    if (log && foreign.count)
      std::fprintf(log, "facs build-filter: warning: %s: %s\n", path.c_str(), foreign.describe().c_str());
  };
  const std::string& command_line = o.command_line;
  const std::string& out = o.output;
  const std::vector<std::string>& refs = o.refs;
  const std::vector<std::string>& names = o.names;
  const BuildParams& p = o.params;
  const FacsAutoTune tune = load_auto_tune(o.tune, "build-filter", log);

  FilterSet set;
  if (p.interleaved && o.add)
    throw UsageError("build-filter: --add cannot extend an interleaved set (its groups are sized for their "
                     "members); build it again with all references");
  if (p.interleaved && tune.on) throw UsageError("build-filter: --auto-tune does not plan interleaved sets");
  if (o.add) {
    set = read_filter_file(out);
    if (set.interleaved())
      throw UsageError(out + ": --add cannot extend an interleaved set (its groups are sized for their members); "
                       "build it again with all references");
    check_compatible(set, p, out);
    set.command_line += "\n" + command_line;
  } else {
    set = make_filter_set(p, command_line);
  }
  // Progress and, before a large reference is hashed, the memory it will take.
  Progress progress(!o.no_progress && (o.progress || stderr_is_tty()), "facs build-filter");
  std::string phase;
  auto show = [&](const std::string& what, uint64_t done, uint64_t total) {
    if (what != phase) {
      phase = what;
      progress.restart("facs build-filter: " + what);
    }
    progress.update(done, total);
  };
  std::set<std::string> taken;
  for (const FilterEntry& f : set.filters) taken.insert(f.name);
  const size_t first_new = set.filters.size();

  // `seqs` in memory, or (`streamed`) the whole file `source` read from disk by build_filter_from_file.
  auto claim_name = [&](const std::string& name) {
    if (name.empty() || name.find_first_of("\t\n,") != std::string::npos)
      throw UsageError("build-filter: filter name '" + name + "' must be non-empty without tabs, commas or newlines");
    if (!taken.insert(name).second)
      throw UsageError("build-filter: two filters would be named '" + name + "' (use --name)");
  };
  auto add = [&](const std::vector<std::string_view>& seqs, const std::string& name, const std::string& source,
                 bool streamed = false) {
    claim_name(name);
    BuildParams q = p;
    if (tune.on && p.layout == BloomLayout::classic) {
      // The model's plan for this reference: m and k for its distinct k-mer count (counted once more here, the same
      // way the build counts them); explicit -m / -k stay fixed. The plan uses the classic FPR formula; blocked
      // filters are sized by the builder itself from the blocked formula for the same target (p.fpr).
      const uint64_t n = p.count == KmerCount::exact ? distinct_canonical_wmers(seqs, p.w).size()
                                                     : estimate_distinct_wmers(seqs, p.w);
      const model::FacsPlan fp = model::plan_facs(std::max<uint64_t>(n, 1), tune.target_fpr, tune.reads,
                                                  tune.read_len, p.w, tune.profile.device, tune.profile.calibration);
      if (!q.m_bits) q.m_bits = fp.m_bits;
      if (!q.hashes) q.hashes = fp.k;
    }
    auto report = [&](const char* what, uint64_t done, uint64_t total) { show(std::string(what) + " " + name, done, total); };
    if (streamed) {
      ForeignLetters foreign;
      set.filters.push_back(build_filter_from_file(source, q, name, o.threads, report, &foreign));
      warn_foreign(source, foreign);
      if (set.filters.back().elements == 0)
        throw DataError(source + ": no complete " + std::to_string(p.w) + "-mer (sequence shorter than k or all N)");
      return;
    }
    uint64_t bases = 0;
    for (std::string_view s : seqs) bases += s.size();
    if (progress.enabled() && bases >= (uint64_t(64) << 20)) {
      // k-mers: 8 bytes each with --count exact; the sequences themselves are in memory already. The filter from
      // the k-mer count at most (every k-mer distinct).
      uint64_t m = 0;
      int k = 0;
      try {
        size_filter(bases, q, m, k);
      } catch (const UsageError&) {  // too large if every k-mer were distinct: the real count decides later
        m = kMaxBloomBits;
      }
      const double mb = (q.count == KmerCount::exact ? 8.0 * double(bases) : 0.0) / 1e6 + double(m) / 8e6 +
                        double(bases) / 1e6;
      progress.finish();
      if (log)
        std::fprintf(log, "facs build-filter: %s: %.1f Mbases: about %.0f MB of memory at most (%s)\n", name.c_str(),
                   double(bases) / 1e6, mb,
                   q.count == KmerCount::exact ? "exact count: 8 bytes per k-mer; --count hll needs none" : "--count hll");
    }
    set.filters.push_back(build_filter(seqs, q, name, source, [&](const char* what, uint64_t done, uint64_t total) {
      show(std::string(what) + " " + name, done, total);
    }));

    if (set.filters.back().elements == 0)
      throw DataError(source + ": no complete " + std::to_string(p.w) + "-mer (sequence shorter than k or all N)");
  };
  // Interleaved: every reference (a file, or a record with --per-record) read twice, see interleaved_builder.hpp.
  // `order` (files only): the files in that order, each with its index in `refs`.
  auto each_reference = [&](const char* what,
                            const std::function<void(size_t, const std::string&, const std::string&,
                                                     const std::vector<std::string_view>&)>& fn,
                            const std::vector<size_t>& order = {}) {
    size_t index = 0;
    for (size_t n = 0; n < refs.size(); ++n) {
      const size_t i = order.empty() ? n : order[n];
      if (refs[i] == "-")
        throw UsageError("build-filter: --layout interleaved reads the references twice; give files, not - (stdin)");
      std::vector<SequenceRecord> recs;
      {
        SequenceReader reader(refs[i]);
        const bool first_reading = std::string(what) == "counting";  // (read again to build: warned once)
        reader.check_nucleotide_letters(first_reading);
        reader.on_bases([&](uint64_t b) { show(std::string(what) + " " + refs[i] + ", bases", b, 0); });
        for (SequenceRecord rec; reader.next(rec);) recs.push_back(std::move(rec));
        if (first_reading) warn_foreign(refs[i], reader.foreign_letters());
      }
      if (recs.empty()) throw DataError(refs[i] + ": no sequences");
      if (p.per_record) {
        for (const SequenceRecord& rec : recs) fn(index++, rec.name, refs[i] + ":" + rec.name, {rec.seq});
      } else {
        std::vector<std::string_view> seqs;
        for (const SequenceRecord& rec : recs) seqs.push_back(rec.seq);
        fn(order.empty() ? index++ : i, names.empty() ? file_stem(refs[i]) : names[i], refs[i], seqs);
      }
    }
  };
  double set_fpr = p.fpr;  // what the filters were sized for (an interleaved set's default depends on its size)
  if (p.interleaved) {
    std::vector<InterleavedReference> counted;
    each_reference("counting", [&](size_t, const std::string& name, const std::string& source,
                                   const std::vector<std::string_view>& seqs) {
      claim_name(name);
      InterleavedReference r{name, source, 0, 0};
      for (std::string_view s : seqs) r.source_length += s.size();
      r.elements = p.count == KmerCount::exact ? distinct_canonical_wmers(seqs, p.w).size()
                                               : estimate_distinct_wmers(seqs, p.w);
      if (r.elements == 0)
        throw DataError(source + ": no complete " + std::to_string(p.w) + "-mer (sequence shorter than k or all N)");
      counted.push_back(std::move(r));
    });
    BuildParams ip = p;
    // --router auto: a router only where the references fall into several size groups. With one group it saves
    // only random k-mers' row reads, and its bins could not take a higher FPR: a true k-mer meets every bin of its
    // group (1,024 references of 0.5 Mbases: 1.8x the time with a router and bins at 4.9e-4).
    bool routed = use_group_router(p, counted.size());
    if (routed && p.group_router < 0) {
      std::vector<uint64_t> elements;
      for (const InterleavedReference& r : counted) elements.push_back(r.elements);
      BuildParams plain = p;
      if (!p.fpr_given) plain.fpr = interleaved_default_fpr(counted.size(), false);
      routed = plan_interleaved_groups(elements, plain).size() >= 2;
    }
    ip.group_router = routed ? 1 : 0;
    if (!p.fpr_given) ip.fpr = interleaved_default_fpr(counted.size(), routed);
    set_fpr = ip.fpr;
    InterleavedSetBuilder builder(set, counted, ip);
    // A bin is built apart and moved into the rows once the other 63 of its column are built: files are read in
    // bin order, so that only one column's bins are held at a time. In file order, references of different sizes
    // (so different groups) left nearly every column open until the end, a second copy of the set: 1,024
    // references of 0.05-5.7 Mbases peaked at 17.6 GB for a 9.2-GB set.
    std::vector<size_t> bin_order;
    if (!p.per_record)
      for (const InterleavedGroup& g : set.groups)
        bin_order.insert(bin_order.end(), g.members.begin(), g.members.end());
    each_reference("building", [&](size_t i, const std::string&, const std::string&,
                                   const std::vector<std::string_view>& seqs) { builder.add(i, seqs); },
                   bin_order);
    builder.finish();
  }
  for (size_t i = 0; i < refs.size() && !p.interleaved; ++i) {
    // --count hll over a whole file: streamed twice from disk on all threads, never all in memory.
    if (p.count == KmerCount::hyperloglog && !p.per_record && !tune.on && refs[i] != "-") {
      add({}, names.empty() ? file_stem(refs[i]) : names[i], refs[i], true);
      continue;
    }
    std::vector<SequenceRecord> recs;
    {
      SequenceReader reader(refs[i]);
      reader.check_nucleotide_letters();
      reader.on_bases([&](uint64_t b) { show("reading " + refs[i] + ", bases", b, 0); });
      for (SequenceRecord rec; reader.next(rec);) recs.push_back(std::move(rec));
      progress.finish();
      warn_foreign(refs[i], reader.foreign_letters());
    }
    if (recs.empty()) throw DataError(refs[i] + ": no sequences");
    if (p.per_record) {
      for (const SequenceRecord& rec : recs) add({rec.seq}, rec.name, refs[i] + ":" + rec.name);
    } else {
      std::vector<std::string_view> seqs;
      for (const SequenceRecord& rec : recs) seqs.push_back(rec.seq);
      add(seqs, names.empty() ? file_stem(refs[i]) : names[i], refs[i]);
    }
  }
  progress.finish();
  for (FilterEntry& f : set.filters)
    if (!f.m_bits) f.m_bits = f.bits.m_bits();
  // Open the JSON before writing the container so that a bad path fails before the long part is kept.
  OutputFile json_out;
  if (o.json) json_out = OutputFile(o.json_path);
  write_filter_file(out, set, [&](uint64_t done, uint64_t total) { show("writing " + out + ", bytes", done, total); });
  progress.finish();

  std::vector<const FilterEntry*> built;
  for (size_t j = first_new; j < set.filters.size(); ++j) built.push_back(&set.filters[j]);
  FacsRunPrediction plan;
  if (tune.on) {
    plan = predict_facs_run(built, set.w, tune.reads, tune.read_len, tune.profile.device.parallel_units(), tune);
    if (log) std::fputs(describe_facs_plan(plan, tune, "facs build-filter").c_str(), log);
  }
  if (json_out.is_open()) {
    JsonWriter j;
    j.begin_object();
    j.value("program", "facs build-filter").value("version", BLOOMSEQ_VERSION).value("command_line", command_line);
    j.begin_object("parameters");
    j.value("output", out).value("kmer_size", set.w).value("fpr", set_fpr).value("seed", set.seed);
    j.value("per_record", p.per_record).value("hashes", p.hashes).value("bits", p.m_bits);
    j.end_object();
    j.begin_array("filters");
    for (const FilterEntry* f : built) {
      j.begin_object();
      j.value("name", f->name).value("source", f->source).value("kmers", f->elements).value("hashes", f->k);
      j.value("bits", f->m_bits).value("predicted_fpr", predicted_fpr(*f));
      j.end_object();
    }
    j.end_array();
    for (const GroupRouter& gr : set.routers) {
      j.begin_object("group_router");
      j.value("groups", uint64_t(gr.groups)).value("blocks", gr.n_blocks).value("hashes", gr.k);
      j.value("bytes", gr.blocks.size_bytes());
      j.end_object();
    }
    if (tune.on) {
      begin_facs_plan_json(j, plan, tune);
      j.value("predicted_reads_per_second", plan.reads_per_s).value("for_reads", tune.reads);
      j.value("read_length", tune.read_len);
      j.end_object();
    }
    j.end_object();
    json_out.write(j.str() + "\n");
    json_out.commit();
  }

  if (!o.quiet && log) {
    std::fprintf(log, "#filter\tsource_bases\tkmers\tbits\thashes\tpredicted_fpr\tbytes\tlayout\n");
    for (size_t j = first_new; j < set.filters.size(); ++j) {
      const FilterEntry& f = set.filters[j];
      std::fprintf(log, "%s\t%llu\t%llu\t%llu\t%d\t%.3g\t%llu\t%s\n", f.name.c_str(),
                   (unsigned long long)f.source_length, (unsigned long long)f.elements, (unsigned long long)f.m_bits,
                   f.k, predicted_fpr(f), (unsigned long long)(bloom_words(f.m_bits) * 4),
                   f.group >= 0 ? "interleaved" : layout_name(f.layout));
    }
    for (size_t g = 0; g < set.groups.size(); ++g)
      std::fprintf(log, "# interleaved group %zu: %u bins of %llu bits, k=%d, %llu bytes\n", g + 1,
                   set.groups[g].bins, (unsigned long long)set.groups[g].m_bits, set.groups[g].k,
                   (unsigned long long)set.groups[g].ibf.size_bytes());
    for (const GroupRouter& gr : set.routers)
      std::fprintf(log, "# group router: %llu blocks of 512 bits, k=%d, %llu bytes\n", (unsigned long long)gr.n_blocks,
                   gr.k, (unsigned long long)gr.blocks.size_bytes());
    std::fprintf(log, "wrote %zu filter(s) (w=%d) to %s\n", set.filters.size() - first_new, set.w, out.c_str());
  }
  BuildFilterReport report;
  for (const FilterEntry* f : built) report.built.push_back(f->name);
  report.w = set.w;
  return report;
}

void print_filter_info(const std::string& path, std::FILE* out, bool verify) {
  {
    const FilterSet set = read_filter_file(path, FilterLoading{FilterLoadMode::map, verify ? UINT64_MAX : kMapVerifyLimit});
    std::fprintf(out,
                 "# file: %s\n# format_version: %u\n# kmer_size: %d\n# seed: %llu\n# canonical: %s\n# filters: %zu\n",
                 path.c_str(), set.format_version, set.w, (unsigned long long)set.seed,
                 set.canonical ? "yes" : "no", set.filters.size());
    std::string cl = set.command_line;
    const std::string sep = "\n# command: ";
    for (size_t pos = 0; (pos = cl.find('\n', pos)) != std::string::npos; pos += sep.size()) cl.replace(pos, 1, sep);
    std::fprintf(out, "# command: %s\n", cl.c_str());
    std::fprintf(out, "# checksum: %s\n", set.checksum_verified ? "verified" : "not verified (use --verify)");
    std::fprintf(out, "#name\tsource\tsource_bases\tkmers\thashes\tbits\tbytes\tfill\tpredicted_fpr\tfill_fpr\tlayout\n");
    for (size_t g = 0; g < set.groups.size(); ++g)
      std::fprintf(out, "# group %zu: interleaved, %u bins of %llu bits, k=%d, %llu bytes\n", g + 1,
                   set.groups[g].bins, (unsigned long long)set.groups[g].m_bits, set.groups[g].k,
                   (unsigned long long)set.groups[g].ibf.size_bytes());
    for (const GroupRouter& gr : set.routers)
      std::fprintf(out, "# group router: %llu blocks of 512 bits, k=%d, %llu bytes, fill %.4f\n",
                   (unsigned long long)gr.n_blocks, gr.k, (unsigned long long)gr.blocks.size_bytes(),
                   double(popcount_words(gr.blocks.row_data(), gr.n_blocks * kRouterBlockWords)) /
                       double(gr.n_blocks * 512));
    std::vector<std::vector<uint64_t>> bin_bits(set.groups.size());  // each group's bins counted in one pass
    for (const FilterEntry& f : set.filters) {
      // A bin of an interleaved group: its bits are a column of the group's rows, its bytes its share of them.
      const bool bin = f.group >= 0;
      if (bin && bin_bits[size_t(f.group)].empty()) bin_bits[size_t(f.group)] = set.groups[size_t(f.group)].ibf.bin_popcounts();
      const double fill = bin ? double(bin_bits[size_t(f.group)][f.bin]) / double(f.m_bits) : f.bits.fill_fraction();
      std::fprintf(out, "%s\t%s\t%llu\t%llu\t%d\t%llu\t%llu\t%.4f\t%.3g\t%.3g\t%s\n", f.name.c_str(),
                   f.source.c_str(), (unsigned long long)f.source_length, (unsigned long long)f.elements, f.k,
                   (unsigned long long)f.m_bits, (unsigned long long)(bloom_words(f.m_bits) * 4), fill,
                   predicted_fpr(f), bin ? std::pow(fill, f.k) : fill_fpr(f), bin ? "interleaved" : layout_name(f.layout));
    }
  }
}

}  // namespace bloomseq
