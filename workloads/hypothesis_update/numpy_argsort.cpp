#include "numpy_argsort.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace weft::hypothesis_update {

namespace {

constexpr int64_t kSmallQuicksort = 15;
constexpr int kStack = 128;

// numpy's ordering for floats: NaN sorts after everything.
bool less(double a, double b) { return a < b || (b != b && a == a); }

int msb(int64_t n) {
  int depth = 0;
  while (n >>= 1) ++depth;
  return depth;
}

// Moves the element `tmp` down from heap position i (1-based, heap of n), as numpy's loop does.
void sift_down(const double* v, int64_t* a, int64_t i, int64_t n, int64_t tmp) {
  for (int64_t j = i << 1; j <= n;) {
    if (j < n && less(v[a[j]], v[a[j + 1]])) j += 1;
    if (!less(v[tmp], v[a[j]])) break;
    a[i] = a[j];
    i = j;
    j += j;
  }
  a[i] = tmp;
}

void heapsort(const double* v, int64_t* tosort, int64_t n) {
  int64_t* a = tosort - 1;  // 1-based heap indexing, as numpy does
  for (int64_t l = n >> 1; l > 0; --l) sift_down(v, a, l, n, a[l]);
  for (; n > 1;) {
    const int64_t tmp = a[n];
    a[n] = a[1];
    n -= 1;
    sift_down(v, a, 1, n, tmp);
  }
}

}  // namespace

std::vector<int64_t> numpy_argsort(const std::vector<double>& values) {
  const int64_t num = int64_t(values.size());
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), int64_t(0));
  if (num < 2) return order;
  const double* v = values.data();
  int64_t* pl = order.data();
  int64_t* pr = pl + num - 1;
  int64_t* stack[kStack];
  int64_t** sptr = stack;
  int depth[kStack];
  int* psdepth = depth;
  int cdepth = msb(num) * 2;
  for (;;) {
    if (cdepth < 0) {
      heapsort(v, pl, pr - pl + 1);
    } else {
      while ((pr - pl) > kSmallQuicksort) {
        int64_t* pm = pl + ((pr - pl) >> 1);
        if (less(v[*pm], v[*pl])) std::swap(*pm, *pl);
        if (less(v[*pr], v[*pm])) std::swap(*pr, *pm);
        if (less(v[*pm], v[*pl])) std::swap(*pm, *pl);
        const double vp = v[*pm];
        int64_t* pi = pl;
        int64_t* pj = pr - 1;
        std::swap(*pm, *pj);
        for (;;) {
          do ++pi;
          while (less(v[*pi], vp));
          do --pj;
          while (less(vp, v[*pj]));
          if (pi >= pj) break;
          std::swap(*pi, *pj);
        }
        std::swap(*pi, *(pr - 1));
        // Push the larger partition, continue with the smaller one.
        if (pi - pl < pr - pi) {
          *sptr++ = pi + 1;
          *sptr++ = pr;
          pr = pi - 1;
        } else {
          *sptr++ = pl;
          *sptr++ = pi - 1;
          pl = pi + 1;
        }
        *psdepth++ = --cdepth;
      }
      for (int64_t* pi = pl + 1; pi <= pr; ++pi) {
        const int64_t vi = *pi;
        const double vp = v[vi];
        int64_t* pj = pi;
        int64_t* pk = pi - 1;
        while (pj > pl && less(vp, v[*pk])) *pj-- = *pk--;
        *pj = vi;
      }
    }
    if (sptr == stack) break;
    pr = *(--sptr);
    pl = *(--sptr);
    cdepth = *(--psdepth);
  }
  return order;
}

}  // namespace weft::hypothesis_update
