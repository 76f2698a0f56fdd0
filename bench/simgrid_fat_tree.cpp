// Shift exchange on a SimGrid 3.32 cluster (s4u), for comparing gridsim's speed with SimGrid's
// on a 1,024-host fat tree: `gridsim bench fat-tree` runs the same scenario on gridsim's engine.
//
//   simgrid_fat_tree --platform FILE --messages K --bytes B [--cfg KEY:VALUE ...]
//
// The platform's hosts are node-0 .. node-(n-1). Host i sends K messages of B bytes one after
// the other, the j-th (j = 1..K) to host (i + j) mod n, each starting when the previous one
// ends; all hosts start at date 0. With K = n - 1 this is an all-to-all exchange in shift
// order. Each message is one `Comm::sendto` (a host-to-host transfer, no mailbox), made by an
// actor of the sending host.
//
// Prints one JSON object: makespan (the date of the last completion), comms, and run_wall_s
// (wall seconds of Engine::run).

#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

[[noreturn]] void die(const std::string& msg)
{
  std::fprintf(stderr, "simgrid_fat_tree: %s\n", msg.c_str());
  std::exit(2);
}

struct Options {
  std::string platform;
  long messages        = 0;
  unsigned long long bytes = 0;
  std::vector<std::string> cfg;
};

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      die("option " + a + " needs a value");
    std::string v = argv[++i];
    if (a == "--platform")
      o.platform = v;
    else if (a == "--messages")
      o.messages = std::atol(v.c_str());
    else if (a == "--bytes")
      o.bytes = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--cfg")
      o.cfg.push_back(v);
    else
      die("unknown option " + a);
  }
  if (o.platform.empty() || o.messages < 1)
    die("usage: simgrid_fat_tree --platform FILE --messages K --bytes B [--cfg KEY:VALUE]");
  return o;
}

double last_end = 0;
unsigned long long comms = 0;

void sender(std::vector<sg4::Host*> const* hosts, size_t i, long messages, unsigned long long bytes)
{
  size_t n = hosts->size();
  for (long j = 1; j <= messages; j++) {
    sg4::Comm::sendto((*hosts)[i], (*hosts)[(i + j) % n], bytes);
    comms++;
    last_end = sg4::Engine::get_clock();
  }
}

} // namespace

int main(int argc, char** argv)
{
  Options o = parse(argc, argv);
  std::vector<std::string> args = {"simgrid_fat_tree", "--log=root.thres:critical"};
  for (const auto& c : o.cfg)
    args.push_back("--cfg=" + c);
  std::vector<char*> cargs;
  for (auto& s : args)
    cargs.push_back(s.data());
  int cargc = static_cast<int>(cargs.size());
  sg4::Engine e(&cargc, cargs.data());
  e.load_platform(o.platform);

  std::vector<sg4::Host*> hosts;
  for (size_t i = 0; i < e.get_host_count(); i++) {
    sg4::Host* h = e.host_by_name_or_null("node-" + std::to_string(i));
    if (h == nullptr)
      die("the platform has " + std::to_string(e.get_host_count()) + " hosts but no node-" + std::to_string(i));
    hosts.push_back(h);
  }
  if (o.messages >= static_cast<long>(hosts.size()))
    die("--messages must be less than the host count");
  for (size_t i = 0; i < hosts.size(); i++)
    sg4::Actor::create("sender-" + std::to_string(i), hosts[i], sender, &hosts, i, o.messages, o.bytes);

  auto t0 = std::chrono::steady_clock::now();
  e.run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (comms != hosts.size() * static_cast<unsigned long long>(o.messages))
    die("only " + std::to_string(comms) + " transfers completed");
  std::printf("{\"makespan\": %.17g, \"comms\": %llu, \"run_wall_s\": %.6f}\n", last_end, comms, wall);
  return 0;
}
