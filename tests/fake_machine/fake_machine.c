// Test-only LD_PRELOAD shim (issue 20): makes a test process believe it runs on a machine with
// another memory size and core count, so that expectations recorded on one machine are checked
// on another. The engine has no switch for this: it asks libc, and this library answers.
//   TIR_FAKE_PHYS_BYTES  physical memory in bytes: sysconf(_SC_PHYS_PAGES) answers it / page size
//   TIR_FAKE_NPROCS      cores: sysconf(_SC_NPROCESSORS_ONLN/_CONF), get_nprocs(), get_nprocs_conf()
// An unset variable leaves that answer to libc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static long fake_value(const char* name) {
  const char* e = getenv(name);
  if (!e || !*e) return -1;
  char* end = 0;
  const unsigned long long v = strtoull(e, &end, 10);
  return (*end == '\0' && v > 0 && v <= (unsigned long long)0x7fffffffffffffffLL) ? (long)v : -1;
}

static long real_sysconf(int name) {
  static long (*real)(int) = 0;
  if (!real) real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
  return real(name);
}

long sysconf(int name) {
  if (name == _SC_PHYS_PAGES) {
    const long bytes = fake_value("TIR_FAKE_PHYS_BYTES");
    const long page = real_sysconf(_SC_PAGESIZE);
    if (bytes > 0 && page > 0) return bytes / page;
  }
  if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) {
    const long n = fake_value("TIR_FAKE_NPROCS");
    if (n > 0) return n;
  }
  return real_sysconf(name);
}

static int fake_nprocs(const char* real_name) {
  const long n = fake_value("TIR_FAKE_NPROCS");
  if (n > 0) return (int)n;
  int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, real_name);
  return real ? real() : 1;
}

int get_nprocs(void) { return fake_nprocs("get_nprocs"); }
int get_nprocs_conf(void) { return fake_nprocs("get_nprocs_conf"); }
