// Stage-1a and classification throughput of a backend (default: the CUDA backend), checked against the CPU
// reference on a prefix of the same inputs. Prints a table and writes CSV.
//
//   gpu_bench [--backend cuda|auto|cpu] [--device N] [--subqueries 5000] [--db-bases 16000000] ...
//   gpu_bench --quick      small sizes, for a smoke test (exit 77 when the backend cannot be created)
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#if defined(BLOOMSEQ_WITH_CUDA_BACKEND)
#include "bloomseq/cuda/cuda_backend.hpp"
#endif
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/launch_config.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<uint8_t> random_codes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> c(n);
  for (auto& x : c) x = uint8_t(rng() & 3);
  for (size_t i = 0; i + 10 < n; i += 100000 + rng() % 100000)  // sparse N runs
    for (size_t j = 0; j < 10; ++j) c[i + j] = kInvalidBase;
  return c;
}

void insert_all(const H3Family& fam, BloomView bits, int k, const uint8_t* codes, size_t n) {
  uint32_t h[kMaxHashes];
  const H3ByteView v = fam.byte_view();
  for_each_wmer(codes, n, fam.w(), [&](size_t, uint64_t f, uint64_t r) {
    v.hash_all(canonical_wmer(f, r), h);
    bits.insert(h, k);
  });
}

struct Row {
  std::string what, backend;
  double seconds, rate;
  std::string unit;
  std::string check;
  double model = 0;  // the performance model's prediction in the same unit (0: none)
};

}  // namespace

int main(int argc, char** argv) try {
  cxxopts::Options opts("gpu_bench", "Stage-1a and classify throughput of a backend, checked against the CPU reference");
  opts.add_options()
    ("backend", "auto|cpu|cuda", cxxopts::value<std::string>()->default_value("cuda"))
    ("device", "CUDA device", cxxopts::value<int>()->default_value("0"))
    ("subqueries", "sub-query vectors", cxxopts::value<uint32_t>()->default_value("5000"))
    ("n-sub", "bases per sub-query", cxxopts::value<uint64_t>()->default_value("1000"))
    ("m-bits", "bits per sub-query vector", cxxopts::value<uint64_t>()->default_value("262144"))
    ("k", "hash functions (stage 1a)", cxxopts::value<int>()->default_value("6"))
    ("w", "word size (stage 1a)", cxxopts::value<int>()->default_value("11"))
    ("db-bases", "database bases", cxxopts::value<uint64_t>()->default_value("16000000"))
    ("chunk", "bases per database chunk", cxxopts::value<uint64_t>()->default_value("4000000"))
    ("check-bases", "database prefix checked against the CPU reference", cxxopts::value<uint64_t>()->default_value("200000"))
    ("filters", "reference filters (classify)", cxxopts::value<uint32_t>()->default_value("7"))
    ("ref-bases", "bases per reference", cxxopts::value<uint64_t>()->default_value("2000000"))
    ("classify-w", "k-mer size (classify)", cxxopts::value<int>()->default_value("21"))
    ("reads", "reads", cxxopts::value<uint32_t>()->default_value("1000000"))
    ("read-len", "read length", cxxopts::value<uint32_t>()->default_value("150"))
    ("batch", "reads per batch", cxxopts::value<uint32_t>()->default_value("100000"))
    ("vectors-per-block", "CUDA: sub-query vectors per block, a comma-separated sweep", cxxopts::value<std::vector<uint32_t>>()->default_value("1"))
    ("threads-per-block", "CUDA: stage-1a threads per block", cxxopts::value<uint32_t>()->default_value("256"))
    ("streams", "CUDA: streams", cxxopts::value<size_t>()->default_value("3"))
    ("seed", "random seed", cxxopts::value<uint64_t>()->default_value("1"))
    ("quick", "small sizes (smoke test)")
    ("csv", "CSV output", cxxopts::value<std::string>()->default_value("gpu_bench.csv"))
    ("h,help", "help");
  auto a = opts.parse(argc, argv);
  if (a.count("help")) {
    std::cout << opts.help() << "\nExample: gpu_bench --backend cuda --subqueries 5000 --db-bases 16000000\n";
    return 0;
  }
  const bool quick = a.count("quick") > 0;
  const uint32_t V = quick ? 300 : a["subqueries"].as<uint32_t>();
  const uint64_t n_sub = a["n-sub"].as<uint64_t>();
  const uint64_t m_bits = a["m-bits"].as<uint64_t>();
  const int k = a["k"].as<int>(), w = a["w"].as<int>();
  const uint64_t db_bases = quick ? 300000 : a["db-bases"].as<uint64_t>();
  const uint64_t chunk = quick ? 70001 : a["chunk"].as<uint64_t>();
  const uint64_t check_bases = std::min(db_bases, quick ? 100000 : a["check-bases"].as<uint64_t>());
  const uint32_t F = a["filters"].as<uint32_t>();
  const uint64_t ref_bases = quick ? 50000 : a["ref-bases"].as<uint64_t>();
  const int cw = a["classify-w"].as<int>();
  const uint32_t n_reads = quick ? 20000 : a["reads"].as<uint32_t>();
  const uint32_t read_len = a["read-len"].as<uint32_t>();
  const uint32_t batch = std::min(n_reads, quick ? 7000u : a["batch"].as<uint32_t>());
  std::mt19937_64 rng(a["seed"].as<uint64_t>());

  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(a["backend"].as<std::string>(), a["device"].as<int>(), &std::cerr);
    if (!backend) backend = make_reference_backend();  // the host CPU: timed through the reference
  } catch (const UsageError& e) {
    std::cerr << "gpu_bench: " << e.what() << "\n";
    return quick ? 77 : 64;
  }
  // Backend variants to time for stage 1a: the CUDA tuning sweep when the CUDA backend is linked in.
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> variants;
#if defined(BLOOMSEQ_WITH_CUDA_BACKEND)
  if (backend->name() == "cuda") {
    for (uint32_t vpb : a["vectors-per-block"].as<std::vector<uint32_t>>()) {
      CudaOptions co;
      co.vectors_per_block = vpb;
      co.stage1a_threads = a["threads-per-block"].as<uint32_t>();
      co.streams = a["streams"].as<size_t>();
      variants.emplace_back(" vpb=" + std::to_string(vpb) + " T=" + std::to_string(co.stage1a_threads) +
                                " S=" + std::to_string(co.streams),
                            make_cuda_backend(a["device"].as<int>(), co));
    }
  }
#endif
  if (variants.empty()) variants.emplace_back("", nullptr);
  // The device the model predicts for: the CUDA device when there is one, else a built-in H100 profile.
  model::DeviceProfile model_dev = model::h100();
  std::string model_dev_note = "built-in H100 profile (no CUDA device here)";
#if defined(BLOOMSEQ_WITH_CUDA_BACKEND)
  if (backend->name() == "cuda" && cuda_device_profile(a["device"].as<int>(), model_dev))
    model_dev_note = "this device's properties";
#endif
  const model::Calibration model_cal = model::default_calibration(model_dev);
  std::cout << "# model: " << model_dev.name << " (" << model_dev_note << "), " << model_cal.source << "\n";
  auto cpu = make_reference_backend();
  std::cout << "# backend: " << backend->description() << "\n";
  std::vector<Row> rows;
  bool ok = true;

  // ---- Stage 1a: V sub-query vectors, random database with query pieces.
  {
    const H3Family fam(k, w, kDefaultH3Seed);
    const auto query = random_codes(rng, size_t(V) * n_sub + size_t(w));
    const uint64_t wpv = bloom_words(m_bits);
    std::vector<uint32_t> words(wpv * V, 0);
    for (uint32_t v = 0; v < V; ++v)
      insert_all(fam, BloomView{words.data() + v * wpv, m_bits}, k, query.data() + v * n_sub, n_sub + size_t(w) - 1);
    auto db = random_codes(rng, db_bases);
    for (size_t at = 0; at + 100 < db.size(); at += 5000) {
      const size_t from = rng() % (query.size() - 100);
      std::copy(query.begin() + std::ptrdiff_t(from), query.begin() + std::ptrdiff_t(from + 100), db.begin() + std::ptrdiff_t(at));
    }
    SubqueryVectors sv{words.data(), V, m_bits, wpv, k, fam.byte_view()};
    auto chunks_of = [&](uint64_t total) {
      return [&, total, at = uint64_t(0)](DbChunk& c) mutable {
        if (at >= total) return false;
        c.codes = db.data() + at;
        c.n_starts = std::min(chunk, total - at);
        c.n = std::min<uint64_t>(c.n_starts + uint64_t(w) - 1, total - at);
        c.first_pos = at;
        c.w = w;
        at += c.n_starts;
        return true;
      };
    };
    std::vector<Stage1aHit> want;
    cpu->stage1a_stream(sv, chunks_of(check_bases), [&](uint64_t, std::vector<Stage1aHit>& h) { want.insert(want.end(), h.begin(), h.end()); });
    for (auto& [label, variant] : variants) {
      Backend& b = variant ? *variant : *backend;
      std::vector<Stage1aHit> got;
      b.stage1a_stream(sv, chunks_of(check_bases), [&](uint64_t, std::vector<Stage1aHit>& h) { got.insert(got.end(), h.begin(), h.end()); });
      const bool same = got == want;
      ok = ok && same;
      const std::string check = (same ? "identical to cpu (" : "DIFFERS from cpu (") + std::to_string(want.size()) +
                                " hits on " + std::to_string(check_bases) + " bases)";
      uint64_t hits = 0;
      const auto t0 = Clock::now();
      b.stage1a_stream(sv, chunks_of(db_bases), [&](uint64_t, std::vector<Stage1aHit>& h) { hits += h.size(); });
      const double s = seconds_since(t0);
      const double tests = double(db_bases - uint64_t(w) + 1) * V;
      rows.push_back({"stage1a V=" + std::to_string(V) + " m=" + std::to_string(m_bits) + " k=" + std::to_string(k) +
                          " w=" + std::to_string(w) + " db=" + std::to_string(db_bases) + label,
                      b.name(), s, tests / s, "membership tests/s", check, 0.0});
      {
        model::Stage1aConfig mc;
        mc.query_bases = uint64_t(V) * n_sub;
        mc.db_bases = db_bases;
        mc.w = w;
        mc.n_sub = n_sub;
        mc.k = k;
        mc.m_bits = m_bits;
        mc.layout = model::Layout::PaperVector;
        mc.launch = model::blast_launch_config(model_dev, m_bits, V, model::KernelResources{}, 256, 1);
        mc.batch_bases = chunk;
        mc.streams = 3;
        const model::Prediction pr = model::predict_stage1a(mc, model_dev, model_cal);
        if (pr.valid) rows.back().model = pr.tests_per_s;
      }
      std::cout << "# stage 1a hits" << label << ": " << hits << "\n";
    }
  }

  // ---- Classify: F filters at FPR ~5e-4, reads from the references and random reads.
  {
    const H3Family fam(10, cw, kDefaultH3Seed);
    std::vector<std::vector<uint8_t>> refs;
    std::vector<BloomVector> bits;
    std::vector<ClassifyFilter> filters;
    for (uint32_t f = 0; f < F; ++f) {
      refs.push_back(random_codes(rng, ref_bases));
      const uint64_t m = bits_for_fpr(ref_bases, 5e-4);
      const int kf = std::min(10, optimal_hashes(ref_bases, m));
      bits.emplace_back(m);
      insert_all(fam, bits.back().view(), kf, refs.back().data(), refs.back().size());
      filters.push_back({ConstBloomView{bits.back().words().data(), m}, kf});
    }
    FilterBank bank{filters.data(), F, &fam};
    std::vector<uint8_t> codes;
    std::vector<uint64_t> offsets{0};
    for (uint32_t r = 0; r < n_reads; ++r) {
      if (r % 4 == 3) {
        for (uint32_t i = 0; i < read_len; ++i) codes.push_back(uint8_t(rng() & 3));
      } else {
        const auto& ref = refs[rng() % F];
        const size_t from = rng() % (ref.size() - read_len);
        codes.insert(codes.end(), ref.begin() + std::ptrdiff_t(from), ref.begin() + std::ptrdiff_t(from + read_len));
      }
      offsets.push_back(codes.size());
    }
    auto batches = [&](uint32_t total) {
      return [&, total, at = uint32_t(0)](ReadBatchView& v) mutable {
        if (at >= total) return false;
        v.codes = codes.data();
        v.offsets = offsets.data() + at;
        v.count = std::min(batch, total - at);
        at += v.count;
        return true;
      };
    };
    // Check the first batch bit for bit.
    ReadBatchView first{codes.data(), offsets.data(), batch};
    ClassifyHits got, want;
    backend->classify(bank, first, got);
    cpu->classify(bank, first, want);
    const bool same = got.bitmaps == want.bitmaps && got.hit_frames == want.hit_frames;
    ok = ok && same;
    uint64_t frames_hit = 0;
    for (auto h : want.hit_frames) frames_hit += h;
    const std::string check = (same ? "identical to cpu (" : "DIFFERS from cpu (") + std::to_string(batch) +
                              " reads, " + std::to_string(frames_hit) + " frame hits)";
    const auto t0 = Clock::now();
    uint64_t total_hits = 0;
    backend->classify_stream(bank, batches(n_reads), [&](uint64_t, ClassifyHits& h) {
      for (auto x : h.hit_frames) total_hits += x;
    });
    const double s = seconds_since(t0);
    double model_reads = 0;
    {
      // One filter per prediction (eq. 23); the kernel probes all F filters per k-mer, so times add up.
      double seconds_per_read = 0;
      for (uint32_t f = 0; f < F; ++f) {
        model::FacsConfig fc;
        fc.reads = n_reads;
        fc.read_len = read_len;
        fc.w = cw;
        fc.k = filters[f].k;
        fc.m_bits = filters[f].bits.m_bits;
        fc.launch = model::facs_launch_config(model_dev, n_reads, fc.m_bits, model::KernelResources{}, 0);
        const model::FacsPrediction pr = model::predict_facs(fc, ref_bases, model_dev, model_cal);
        if (!pr.valid || pr.reads_per_s <= 0) {
          seconds_per_read = 0;
          break;
        }
        seconds_per_read += 1.0 / pr.reads_per_s;
      }
      if (seconds_per_read > 0) model_reads = 1.0 / seconds_per_read;
    }
    rows.push_back({"classify F=" + std::to_string(F) + " w=" + std::to_string(cw) + " reads=" + std::to_string(n_reads) +
                        "x" + std::to_string(read_len),
                    backend->name(), s, n_reads / s, "reads/s", check, model_reads});
    const double tests = double(n_reads) * (read_len - uint32_t(cw) + 1) * F;
    rows.push_back({"classify (same run)", backend->name(), s, tests / s, "membership tests/s", check,
                    model_reads * (read_len - uint32_t(cw) + 1) * F});
  }

  std::printf("%-60s %-8s %10s %12s %12s  %-20s %s\n", "benchmark", "backend", "seconds", "measured", "model", "unit",
              "check");
  // The model predicts the GPU kernels: shown in the table only when that is what ran, else below it.
  const bool model_matches = backend->name() == "cuda";
  for (const Row& r : rows) {
    char model_s[32] = "n/a";
    if (r.model > 0 && model_matches) std::snprintf(model_s, sizeof model_s, "%.4g", r.model);
    std::printf("%-60s %-8s %10.3f %12.4g %12s  %-20s %s\n", r.what.c_str(), r.backend.c_str(), r.seconds, r.rate,
                model_s, r.unit.c_str(), r.check.c_str());
  }
  if (!model_matches)
    for (const Row& r : rows)
      if (r.model > 0)
        std::printf("model prediction for the GPU kernels on %s: %-44s %.4g %s\n", model_dev.name.c_str(),
                    r.what.c_str(), r.model, r.unit.c_str());
  std::ofstream csv(a["csv"].as<std::string>());
  csv << "benchmark,backend,device,seconds,rate,model,unit,check\n";
  for (const Row& r : rows)
    csv << '"' << r.what << "\"," << r.backend << ",\"" << backend->description() << "\"," << r.seconds << ','
        << r.rate << ',' << r.model << ",\"" << r.unit << "\",\"" << r.check << "\"\n";
  if (!ok) std::cerr << "gpu_bench: results differ from the CPU reference\n";
  return ok ? 0 : 1;
} catch (const Error& e) {
  std::cerr << "gpu_bench: " << e.what() << "\n";
  return int(e.code());
} catch (const std::exception& e) {
  std::cerr << "gpu_bench: " << e.what() << "\n";
  return 70;
}
