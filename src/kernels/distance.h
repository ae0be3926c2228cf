// p-norm distances between rows (cdist, pdist), direct form: every distance
// sums its own |x - y| terms, so p = 2 has none of the cancellation of torch's
// |x|^2 + |y|^2 - 2 x.y matrix-multiplication path (compute_mode) and is at
// least as accurate. p = 0 counts the differing coordinates, p = inf takes the
// largest |x - y|. Scalar code, threads over rows of a; instantiated for float
// and double (float accumulates in double).
#pragma once
#include <cstdint>

namespace tir {

// out[i*R + j] = ||a[i] - b[j]||_p, a [P, M], b [R, M] contiguous rows.
template <typename T> void cdist_rows(int64_t P, int64_t R, int64_t M, double p, const T* a, const T* b, T* out);
// out = ||x[i] - x[j]||_p for i < j in row-major pair order, x [N, M].
template <typename T> void pdist_rows(int64_t N, int64_t M, double p, const T* x, T* out);

}  // namespace tir
