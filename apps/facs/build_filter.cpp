// facs build-filter: one filter per reference file (or per FASTA record), appended to a .bf container.
#include <cxxopts.hpp>

#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/io/output_file.hpp"
#include "facs_autotune.hpp"
#include "facs_commands.hpp"

namespace bloomseq {

std::string file_stem(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".bgz", ".fa", ".fasta", ".fna", ".ffn", ".fas", ".fq", ".fastq", ".2bit"}) {
    const size_t n = std::strlen(ext);
    if (s.size() > n && s.compare(s.size() - n, n, ext) == 0) s.resize(s.size() - n);
  }
  return s;
}

int facs_build_filter(int argc, char** argv, const std::string& command_line) {
  cxxopts::Options o("facs build-filter",
                     "Build one Bloom filter of canonical k-mers per reference (per file, or per FASTA record with\n"
                     "--per-record), sized for a target false-positive rate from the number of distinct k-mers.\n");
  o.custom_help("-o OUT.bf [options]");
  o.positional_help("REF.fa [REF2.fa ...]");
  BuildParams p;
  o.add_options()
      ("o,output", "the .bf container to write (required)", cxxopts::value<std::string>())
      ("add", "append to the existing container given by -o (same -w)")
      ("w,kmer", "k-mer size 1..32", cxxopts::value<int>()->default_value(std::to_string(p.w)))
      ("fpr", "target false-positive rate per k-mer lookup", cxxopts::value<double>()->default_value("0.0005"))
      ("k,hashes", "hash functions (default: optimal for the size)", cxxopts::value<int>()->default_value("0"))
      ("m,bits", "filter size in bits (default: from --fpr and the k-mer count)",
       cxxopts::value<uint64_t>()->default_value("0"))
      ("layout", "bit layout: blocked (all probes of a k-mer in one 64-byte cache line; ~15-20% more bits for the "
                 "same FPR, several times faster to query) or classic (probes anywhere in the filter)",
       cxxopts::value<std::string>()->default_value("blocked"))
      ("per-record", "one filter per FASTA record instead of one per file")
      ("name", "filter name, once per input file in order (default: the file name without extensions)",
       cxxopts::value<std::vector<std::string>>())
      ("count", "how distinct k-mers are counted: exact (sort, 8 bytes per k-mer) or hll (HyperLogLog estimate)",
       cxxopts::value<std::string>()->default_value("exact"))
      ("seed", "H3 hash seed", cxxopts::value<uint64_t>()->default_value(std::to_string(kDefaultH3Seed)))
      ("json", "JSON file with the parameters, the filters built and (--auto-tune) the plan",
       cxxopts::value<std::string>())
      ("q,quiet", "do not print the table of filters built")
      ("h,help", "this help")
      ("refs", "reference files", cxxopts::value<std::vector<std::string>>());
  add_auto_tune_options(o);
  o.parse_positional({"refs"});
  cxxopts::ParseResult r;
  try {
    r = o.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string("build-filter: ") + e.what());
  }
  if (r.count("help")) {
    std::fputs(o.help().c_str(), stdout);
    std::fputs(
        "\nExamples:\n"
        "  facs build-filter -o refs.bf ecoli.fa suis.fa.gz lambda.fa\n"
        "  facs build-filter -o refs.bf --add --name dwv bee-virus.fa\n"
        "  facs build-filter -o viruses.bf --per-record viruses.fa      # one filter per record\n"
        "  facs build-filter -o big.bf -w 31 --fpr 0.001 --count hll genome.fa.gz\n"
        "  facs build-filter -o refs.bf --auto-tune --target-fpr 1e-4 --json build.json ecoli.fa\n"
        "\n--auto-tune sizes each filter with the performance model for --target-fpr per k-mer lookup (default:\n"
        "--fpr): k = m/n ln 2 with m = -n ln p / ln^2 2, m then grown until the rounded k meets the target\n"
        "(n = distinct k-mers, counted once more for the plan; explicit -m/-k stay fixed),\n"
        "and prints the predicted FPR and classification rate (reads/s for 1M reads of --read-length bases).\n",
        stdout);
    return 0;
  }
  if (!r.count("output")) throw UsageError("build-filter: -o OUT.bf is required");
  if (!r.count("refs")) throw UsageError("build-filter: no reference files given");
  const std::string out = r["output"].as<std::string>();
  const auto refs = r["refs"].as<std::vector<std::string>>();
  p.w = r["kmer"].as<int>();
  p.fpr = r["fpr"].as<double>();
  p.hashes = r["hashes"].as<int>();
  p.m_bits = r["bits"].as<uint64_t>();
  p.per_record = r.count("per-record") > 0;
  p.seed = r["seed"].as<uint64_t>();
  const std::string layout = r["layout"].as<std::string>();
  if (layout == "blocked") p.layout = BloomLayout::blocked512;
  else if (layout == "classic") p.layout = BloomLayout::classic;
  else throw UsageError("build-filter: --layout must be blocked or classic, got '" + layout + "'");
  const std::string count = r["count"].as<std::string>();
  if (count == "exact") p.count = KmerCount::exact;
  else if (count == "hll") p.count = KmerCount::hyperloglog;
  else throw UsageError("build-filter: --count must be exact or hll, got '" + count + "'");
  if (p.w < 1 || p.w > 32) throw UsageError("build-filter: -w must be 1..32, got " + std::to_string(p.w));
  if (!(p.fpr > 0 && p.fpr < 1)) throw UsageError("build-filter: --fpr must be in (0, 1)");
  FacsAutoTune tune = parse_auto_tune(r, "build-filter", false);
  if (tune.on) {
    if (tune.target_fpr > 0) p.fpr = tune.target_fpr;
    else tune.target_fpr = p.fpr;
  }
  const int max_k = p.layout == BloomLayout::blocked512 ? kMaxHashes - 1 : kMaxHashes;
  if (p.hashes < 0 || p.hashes > max_k)
    throw UsageError("build-filter: -k must be 1.." + std::to_string(max_k) + " for the " + layout + " layout");
  std::vector<std::string> names;
  if (r.count("name")) names = r["name"].as<std::vector<std::string>>();
  if (!names.empty() && names.size() != refs.size())
    throw UsageError("build-filter: give --name once per input file (" + std::to_string(refs.size()) + "), got " +
                     std::to_string(names.size()));
  if (!names.empty() && p.per_record) throw UsageError("build-filter: --name and --per-record exclude each other");

  FilterSet set;
  if (r.count("add")) {
    set = read_filter_file(out);
    check_compatible(set, p, out);
    set.command_line += "\n" + command_line;
  } else {
    set = make_filter_set(p, command_line);
  }
  std::set<std::string> taken;
  for (const FilterEntry& f : set.filters) taken.insert(f.name);
  const size_t first_new = set.filters.size();

  auto add = [&](const std::vector<std::string_view>& seqs, const std::string& name, const std::string& source) {
    if (name.empty() || name.find_first_of("\t\n,") != std::string::npos)
      throw UsageError("build-filter: filter name '" + name + "' must be non-empty without tabs, commas or newlines");
    if (!taken.insert(name).second)
      throw UsageError("build-filter: two filters would be named '" + name + "' (use --name)");
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
    set.filters.push_back(build_filter(seqs, q, name, source));

    if (set.filters.back().elements == 0)
      throw DataError(source + ": no complete " + std::to_string(p.w) + "-mer (sequence shorter than k or all N)");
  };
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::vector<SequenceRecord> recs = read_all_sequences(refs[i]);
    if (recs.empty()) throw DataError(refs[i] + ": no sequences");
    if (p.per_record) {
      for (const SequenceRecord& rec : recs) add({rec.seq}, rec.name, refs[i] + ":" + rec.name);
    } else {
      std::vector<std::string_view> seqs;
      for (const SequenceRecord& rec : recs) seqs.push_back(rec.seq);
      add(seqs, names.empty() ? file_stem(refs[i]) : names[i], refs[i]);
    }
  }
  // Open the JSON before writing the container so that a bad path fails before the long part is kept.
  OutputFile json_out;
  if (r.count("json")) json_out = OutputFile(r["json"].as<std::string>());
  write_filter_file(out, set);

  std::vector<const FilterEntry*> built;
  for (size_t j = first_new; j < set.filters.size(); ++j) built.push_back(&set.filters[j]);
  FacsRunPrediction plan;
  if (tune.on) {
    plan = predict_facs_run(built, set.w, tune.reads, tune.read_len, tune.profile.device.parallel_units(), tune);
    std::fputs(describe_facs_plan(plan, tune, "facs build-filter").c_str(), stderr);
  }
  if (json_out.is_open()) {
    JsonWriter j;
    j.begin_object();
    j.value("program", "facs build-filter").value("version", BLOOMSEQ_VERSION).value("command_line", command_line);
    j.begin_object("parameters");
    j.value("output", out).value("kmer_size", set.w).value("fpr", p.fpr).value("seed", set.seed);
    j.value("per_record", p.per_record).value("hashes", p.hashes).value("bits", p.m_bits);
    j.end_object();
    j.begin_array("filters");
    for (const FilterEntry* f : built) {
      j.begin_object();
      j.value("name", f->name).value("source", f->source).value("kmers", f->elements).value("hashes", f->k);
      j.value("bits", f->bits.m_bits()).value("predicted_fpr", predicted_fpr(*f));
      j.end_object();
    }
    j.end_array();
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

  if (!r.count("quiet")) {
    std::fprintf(stderr, "#filter\tsource_bases\tkmers\tbits\thashes\tpredicted_fpr\tbytes\tlayout\n");
    for (size_t j = first_new; j < set.filters.size(); ++j) {
      const FilterEntry& f = set.filters[j];
      std::fprintf(stderr, "%s\t%llu\t%llu\t%llu\t%d\t%.3g\t%llu\t%s\n", f.name.c_str(),
                   (unsigned long long)f.source_length, (unsigned long long)f.elements,
                   (unsigned long long)f.bits.m_bits(), f.k, predicted_fpr(f),
                   (unsigned long long)(bloom_words(f.bits.m_bits()) * 4), layout_name(f.layout));
    }
    std::fprintf(stderr, "wrote %zu filter(s) (w=%d) to %s\n", set.filters.size() - first_new, set.w, out.c_str());
  }
  return 0;
}

int facs_info(int argc, char** argv) {
  cxxopts::Options o("facs info", "Describe the filters of .bf containers: header and per filter k-mers, bits, hash\n"
                                  "functions, fill fraction and false-positive rates (predicted from the k-mer count\n"
                                  "and from the fill fraction).\n");
  o.positional_help("REFS.bf [MORE.bf ...]");
  o.add_options()("h,help", "this help")("files", "containers", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"files"});
  cxxopts::ParseResult r;
  try {
    r = o.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string("info: ") + e.what());
  }
  if (r.count("help")) {
    std::fputs(o.help().c_str(), stdout);
    std::fputs("\nExample:\n  facs info refs.bf\n", stdout);
    return 0;
  }
  if (!r.count("files")) throw UsageError("info: no .bf file given");
  for (const std::string& path : r["files"].as<std::vector<std::string>>()) {
    const FilterSet set = read_filter_file(path);
    std::printf("# file: %s\n# format_version: %u\n# kmer_size: %d\n# seed: %llu\n# canonical: %s\n# filters: %zu\n",
                path.c_str(), set.format_version, set.w, (unsigned long long)set.seed,
                set.canonical ? "yes" : "no", set.filters.size());
    std::string cl = set.command_line;
    const std::string sep = "\n# command: ";
    for (size_t pos = 0; (pos = cl.find('\n', pos)) != std::string::npos; pos += sep.size()) cl.replace(pos, 1, sep);
    std::printf("# command: %s\n", cl.c_str());
    std::printf("#name\tsource\tsource_bases\tkmers\thashes\tbits\tbytes\tfill\tpredicted_fpr\tfill_fpr\tlayout\n");
    for (const FilterEntry& f : set.filters)
      std::printf("%s\t%s\t%llu\t%llu\t%d\t%llu\t%llu\t%.4f\t%.3g\t%.3g\t%s\n", f.name.c_str(), f.source.c_str(),
                  (unsigned long long)f.source_length, (unsigned long long)f.elements, f.k,
                  (unsigned long long)f.bits.m_bits(), (unsigned long long)(bloom_words(f.bits.m_bits()) * 4),
                  f.bits.fill_fraction(), predicted_fpr(f), fill_fpr(f), layout_name(f.layout));
  }
  return 0;
}

}  // namespace bloomseq
