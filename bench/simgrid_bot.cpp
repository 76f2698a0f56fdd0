// Bag-of-tasks master/worker on SimGrid 3.32's C++ engine (s4u): the same program as
// scripts/simgrid_bot.py, for comparing gridsim's speed with SimGrid's on identical scenarios.
//
//   bench/simgrid_bot --platform FILE --master HOST --nodes N --tasks N --flops F --bytes B
//                     [--control-bytes 100] --policy wq|gss|fac2 [--chunk k] [--min-chunk k]
//                     [--chunks] [--cfg KEY:VALUE ...]
//
// Protocol (gridsim's schedulers/src/bot/app.rs): workers on the first nodes-1 hosts other than
// the master, in platform-file order; at t=0 each worker sends a control-bytes request; the
// master keeps a receive posted per worker (so a request moves as soon as it is sent), answers
// in arrival order in zero time with an asynchronous reply of k*B bytes (a control-bytes stop
// message when no task remains); a worker computes k*F flops, then asks again.
//
// Prints one JSON object: makespan, activities (comms + execs simulated), chunks, wall seconds
// of Engine::run (and, with --chunks, the chunk log [worker, size, sent, start, end] in
// completion order, as the Python script prints it).

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

[[noreturn]] void die(const std::string& msg, int code = 2)
{
  std::fprintf(stderr, "simgrid_bot: %s\n", msg.c_str());
  std::exit(code);
}

// ---- host order as written in the platform file ------------------------------------------

std::string attribute(const std::string& tag, const std::string& name)
{
  // Looks for ` name="value"` or ` name='value'` inside one start tag.
  size_t pos = 0;
  while ((pos = tag.find(name, pos)) != std::string::npos) {
    bool boundary = pos > 0 && std::isspace(static_cast<unsigned char>(tag[pos - 1]));
    size_t eq     = pos + name.size();
    while (eq < tag.size() && std::isspace(static_cast<unsigned char>(tag[eq])))
      eq++;
    if (boundary && eq < tag.size() && tag[eq] == '=') {
      size_t q = eq + 1;
      while (q < tag.size() && std::isspace(static_cast<unsigned char>(tag[q])))
        q++;
      if (q < tag.size() && (tag[q] == '"' || tag[q] == '\'')) {
        size_t end = tag.find(tag[q], q + 1);
        if (end != std::string::npos)
          return tag.substr(q + 1, end - q - 1);
      }
    }
    pos += name.size();
  }
  return "";
}

std::vector<long> radicals(const std::string& text)
{
  std::vector<long> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (part.empty())
      die("empty item in radical '" + text + "'");
    size_t dash = part.find('-', 1);
    if (dash == std::string::npos) {
      out.push_back(std::stol(part));
    } else {
      long lo = std::stol(part.substr(0, dash)), hi = std::stol(part.substr(dash + 1));
      if (hi < lo)
        die("decreasing range in radical '" + text + "'");
      for (long r = lo; r <= hi; r++)
        out.push_back(r);
    }
  }
  return out;
}

// <host> ids and expanded <cluster> names in document order (comments skipped; <include> is
// not supported).
std::vector<std::string> hosts_in_file_order(const std::string& path)
{
  std::ifstream in(path);
  if (!in)
    die("cannot read " + path, 3);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = text.find('<', pos)) != std::string::npos) {
    if (text.compare(pos, 4, "<!--") == 0) {
      size_t end = text.find("-->", pos);
      pos        = end == std::string::npos ? text.size() : end + 3;
      continue;
    }
    size_t end = text.find('>', pos);
    if (end == std::string::npos)
      break;
    std::string tag = text.substr(pos, end - pos + 1);
    pos             = end + 1;
    auto is         = [&tag](const char* name) {
      size_t n = std::char_traits<char>::length(name);
      return tag.compare(1, n, name) == 0 && tag.size() > n + 1 &&
             (std::isspace(static_cast<unsigned char>(tag[n + 1])) || tag[n + 1] == '/' || tag[n + 1] == '>');
    };
    if (is("host")) {
      names.push_back(attribute(tag, "id"));
    } else if (is("cluster")) {
      for (long r : radicals(attribute(tag, "radical")))
        names.push_back(attribute(tag, "prefix") + std::to_string(r) + attribute(tag, "suffix"));
    } else if (is("include")) {
      die("<include> is not supported by this benchmark", 3);
    }
  }
  return names;
}

// ---- the application ---------------------------------------------------------------------

struct Options {
  std::string platform, master, policy;
  long nodes = 0;
  unsigned long long tasks = 0;
  double flops = -1, bytes = -1, control = 100;
  unsigned long long chunk = 1, min_chunk = 1;
  bool print_chunks = false;
  std::vector<std::string> cfg;
};

struct Reply {
  unsigned long long size;
  double sent;
};

struct Record {
  size_t worker;
  unsigned long long size;
  double sent, start, end;
};

class Policy {
  std::string name_;
  unsigned long long p_, chunk_, min_chunk_, batch_chunk_ = 0, left_in_batch_ = 0;

public:
  Policy(std::string name, unsigned long long p, unsigned long long chunk, unsigned long long min_chunk)
      : name_(std::move(name)), p_(p), chunk_(std::max(1ULL, chunk)), min_chunk_(std::max(1ULL, min_chunk))
  {
  }
  unsigned long long assign(unsigned long long remaining)
  {
    unsigned long long size;
    if (name_ == "wq") {
      size = std::min(chunk_, remaining);
    } else if (name_ == "gss") {
      size = std::min(remaining, std::max(min_chunk_, (remaining + p_ - 1) / p_));
    } else { // fac2
      if (left_in_batch_ == 0) {
        batch_chunk_   = std::max(1ULL, (remaining + 2 * p_ - 1) / (2 * p_));
        left_in_batch_ = p_;
      }
      left_in_batch_--;
      size = std::min(batch_chunk_, remaining);
    }
    return std::min(std::max(size, 1ULL), remaining);
  }
};

struct State {
  Options o;
  std::vector<sg4::Mailbox*> requests, replies;
  std::vector<Record> chunks;
  std::vector<size_t> ids; // request payloads: the worker's index (SimGrid refuses nullptr)
  unsigned long long comms = 0, execs = 0;
};

void master(State* st)
{
  const size_t p = st->requests.size();
  Policy policy(st->o.policy, p, st->o.chunk, st->o.min_chunk);
  unsigned long long remaining = st->o.tasks;
  auto control                 = static_cast<uint64_t>(st->o.control);
  std::vector<sg4::CommPtr> pending;
  std::vector<size_t> owner;
  std::vector<size_t*> sink(p, nullptr); // request payloads (unused)
  for (size_t w = 0; w < p; w++) {
    pending.push_back(st->requests[w]->get_async<size_t>(&sink[w]));
    owner.push_back(w);
  }
  // The last reply sent to each worker. The master waits on it (it is over: the worker got it)
  // before sending the next one. Not waiting would leave every reply in the master actor's list
  // of pending activities, which SimGrid scans at each comm completion: the run time would then
  // grow as N^2 (0.75 s instead of 0.24 s for N = 10000, 6 s instead of 0.7 s for N = 30000).
  std::vector<sg4::CommPtr> sent(p);
  while (!pending.empty()) {
    auto i   = static_cast<size_t>(sg4::Comm::wait_any(pending));
    size_t w = owner[i];
    st->comms++;
    if (sent[w])
      sent[w]->wait(); // returns at once
    if (remaining == 0) {
      sent[w] = st->replies[w]->put_async(new Reply{0, sg4::Engine::get_clock()}, control);
      pending.erase(pending.begin() + i);
      owner.erase(owner.begin() + i);
      continue;
    }
    unsigned long long size = policy.assign(remaining);
    remaining -= size;
    auto bytes = static_cast<uint64_t>(std::llround(static_cast<double>(size) * st->o.bytes));
    sent[w] = st->replies[w]->put_async(new Reply{size, sg4::Engine::get_clock()}, bytes);
    pending[i] = st->requests[w]->get_async<size_t>(&sink[w]);
  }
  for (auto const& c : sent)
    if (c)
      c->wait();
}

void worker(State* st, size_t w)
{
  auto control = static_cast<uint64_t>(st->o.control);
  while (true) {
    Reply* reply       = nullptr;
    sg4::CommPtr got   = st->replies[w]->get_async<Reply>(&reply);
    sg4::CommPtr asked = st->requests[w]->put_async(&st->ids[w], control);
    got->wait();
    asked->wait();
    st->comms++;
    unsigned long long size = reply->size;
    double sent             = reply->sent;
    delete reply;
    if (size == 0)
      return;
    double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(static_cast<double>(size) * st->o.flops);
    st->execs++;
    st->chunks.push_back(Record{w, size, sent, start, sg4::Engine::get_clock()});
  }
}

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--chunks") {
      o.print_chunks = true;
      continue;
    }
    if (a.rfind("--", 0) != 0)
      die("unexpected argument '" + a + "'");
    std::string key = a.substr(2), val;
    size_t eq       = key.find('=');
    if (eq != std::string::npos) {
      val = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else {
      if (i + 1 >= argc)
        die("--" + key + " needs a value");
      val = argv[++i];
    }
    try {
      if (key == "platform")
        o.platform = val;
      else if (key == "master")
        o.master = val;
      else if (key == "policy")
        o.policy = val;
      else if (key == "nodes")
        o.nodes = std::stol(val);
      else if (key == "tasks")
        o.tasks = std::stoull(val);
      else if (key == "flops")
        o.flops = std::stod(val);
      else if (key == "bytes")
        o.bytes = std::stod(val);
      else if (key == "control-bytes")
        o.control = std::stod(val);
      else if (key == "chunk")
        o.chunk = std::stoull(val);
      else if (key == "min-chunk")
        o.min_chunk = std::stoull(val);
      else if (key == "cfg")
        o.cfg.push_back(val);
      else
        die("unknown option --" + key);
    } catch (const std::logic_error&) {
      die("bad value for --" + key + ": '" + val + "'");
    }
  }
  if (o.platform.empty() || o.master.empty() || o.policy.empty() || o.nodes == 0 || o.tasks == 0 || o.flops < 0 ||
      o.bytes < 0)
    die("usage: simgrid_bot --platform FILE --master HOST --nodes N --tasks N --flops F --bytes B "
        "[--control-bytes 100] --policy wq|gss|fac2 [--chunk k] [--min-chunk k] [--chunks] [--cfg K:V]");
  if (o.policy != "wq" && o.policy != "gss" && o.policy != "fac2")
    die("--policy must be wq, gss or fac2");
  if (o.bytes != std::floor(o.bytes) || o.control != std::floor(o.control) || o.control < 0)
    die("--bytes and --control-bytes must be whole numbers");
  return o;
}

} // namespace

int main(int argc, char** argv)
{
  State st;
  st.o = parse(argc, argv);

  std::vector<std::string> order = hosts_in_file_order(st.o.platform);
  if (std::find(order.begin(), order.end(), st.o.master) == order.end())
    die("no host '" + st.o.master + "' in " + st.o.platform);
  if (st.o.nodes < 2 || st.o.nodes > static_cast<long>(order.size()))
    die("--nodes must be from 2 to " + std::to_string(order.size()));
  std::vector<std::string> workers;
  for (const auto& h : order)
    if (h != st.o.master && static_cast<long>(workers.size()) < st.o.nodes - 1)
      workers.push_back(h);

  std::vector<std::string> args = {"simgrid_bot", "--log=root.thres:critical"};
  for (const auto& c : st.o.cfg)
    args.push_back("--cfg=" + c);
  std::vector<char*> cargs;
  for (auto& s : args)
    cargs.push_back(s.data());
  int cargc = static_cast<int>(cargs.size());
  sg4::Engine e(&cargc, cargs.data());
  e.load_platform(st.o.platform);

  for (size_t w = 0; w < workers.size(); w++) {
    st.requests.push_back(sg4::Mailbox::by_name("request-" + std::to_string(w)));
    st.replies.push_back(sg4::Mailbox::by_name("reply-" + std::to_string(w)));
    st.ids.push_back(w);
  }
  sg4::Actor::create("master", e.host_by_name(st.o.master), master, &st);
  for (size_t w = 0; w < workers.size(); w++)
    sg4::Actor::create("worker-" + std::to_string(w), e.host_by_name(workers[w]), worker, &st, w);

  auto t0 = std::chrono::steady_clock::now();
  e.run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  unsigned long long done = 0;
  double makespan         = 0;
  for (const auto& c : st.chunks) {
    done += c.size;
    makespan = std::max(makespan, c.end);
  }
  if (done != st.o.tasks)
    die("only " + std::to_string(done) + " of " + std::to_string(st.o.tasks) + " tasks were computed", 3);

  std::printf("{\"makespan\": %.17g, \"activities\": %llu, \"comms\": %llu, \"execs\": %llu, \"chunks_done\": %zu, "
              "\"run_wall_s\": %.6f",
              makespan, st.comms + st.execs, st.comms, st.execs, st.chunks.size(), wall);
  if (st.o.print_chunks) {
    std::printf(", \"chunks\": [\n");
    for (size_t i = 0; i < st.chunks.size(); i++) {
      const auto& c = st.chunks[i];
      std::printf(" [%zu, %llu, %.17g, %.17g, %.17g]%s\n", c.worker, c.size, c.sent, c.start, c.end,
                  i + 1 < st.chunks.size() ? "," : "");
    }
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}
