// Elementwise kernels: binary/unary maps, where, fill. Scalar reference code
// over strided operands (any strides, stride 0 for broadcast dims). Float32
// rows whose output is contiguous and whose operands are contiguous or one
// broadcast element (a scalar, or a row broadcast over the outer dims) take a
// Highway SIMD row kernel for the common ops (elementwise_simd.h: the exact ops
// bit for bit the scalar reference, the transcendental ones through float64
// lanes, natively only); other rows and dtypes take the scalar code, which
// EwPath::Scalar selects for every row (tests compare the two). Operands are
// Tensor views whose shapes already equal the output's shape (broadcasting is
// done by the caller).
#pragma once
#include <cstdint>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tir {

enum class BinaryOp : uint8_t {
  Add,        // a + alpha * b
  Mul,
  Div,        // true division (floating types only)
  DivTrunc,   // rounds toward zero; integers: error-free precondition b != 0
  DivFloor,   // rounds toward -inf
  Pow,
  Maximum,    // NaN-propagating
  Minimum,
  BitAnd, BitOr, BitXor,  // integral and bool only
  Remainder,  // Python %: sign of the divisor; integers: precondition b != 0
  Fmod,       // C fmod: sign of the dividend; integers: precondition b != 0
  Prelu,      // a > 0 ? a : b * a (floating only)
  MulSigmoid, // a * sigmoid(b), glu's gate (floating only)
  Eq, Ne, Lt, Le, Gt, Ge,          // bool out
  LogicalAnd, LogicalOr, LogicalXor,  // bool out
};
// True for ops whose output is Bool.
bool binary_op_is_predicate(BinaryOp op);

// Auto: float32 SIMD rows where the op has them; Scalar: the scalar reference only.
enum class EwPath : uint8_t { Auto, Scalar };

// out = op(a, b). a and b have the same compute dtype (not f16/bf16) and out's
// shape; out.dtype is a.dtype, or Bool for predicates. out may alias a or b
// elementwise (same view). `alpha` is used by Add only.
void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                   const Scalar& alpha = Scalar::of_int(1), EwPath path = EwPath::Auto);

enum class UnaryOp : uint8_t {
  // any compute dtype (ints stay ints)
  Relu, Neg, Abs, Clamp /* p.a=min (if has_a), p.b=max (if has_b) */,
  // floating only
  Sigmoid, Tanh, Gelu, GeluTanh, Silu, Hardswish, Hardsigmoid, Exp, Log, Sqrt, Rsqrt, Sin, Cos,
  Erf, Reciprocal, LeakyRelu /* p.a=slope */, Elu /* p.a=alpha p.b=scale p.c=input_scale */,
  Softplus /* p.a=beta p.b=threshold */, Expm1, Log1p, Log2, Mish, LogSigmoid,
  ExpNegAbs /* exp(-|x|): log_sigmoid_forward's buffer */, RoundDecimals /* p.a=decimals */,
  // floating and integral (identity on integers), not bool
  Ceil, Floor, Trunc, Round /* half to even */,
  NanToNum /* p.a=nan p.b=posinf p.c=neginf replacements (floating; identity on ints) */,
  // any compute dtype
  Sign, Square /* ints wrap; the caller widens bool to int64 */,
  // integral and bool only
  BitwiseNot,
  // any input dtype, Bool out
  LogicalNot, IsNan, IsInf, IsFinite,
};
struct UnaryParams {
  double a = 0, b = 0, c = 0;
  bool has_a = false, has_b = false;
  // Clamp bounds given as Python ints: exact values for integer tensors (beyond 2^53).
  bool a_is_int = false, b_is_int = false;
  int64_t ia = 0, ib = 0;
};
bool unary_op_is_floating_only(UnaryOp op);
// True for ops whose output is Bool (logical_not, isnan, isinf, isfinite).
bool unary_op_is_predicate(UnaryOp op);

// out = op(in). in.dtype is a compute dtype; out.dtype == in.dtype (Bool for
// predicates); same shape; out may alias in (same view).
void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p = {},
                  EwPath path = EwPath::Auto);

// out = cond ? a : b. cond Bool or U8; a, b, out share out.dtype; all of out's shape.
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

// A new owned 0-d tensor of `dtype` holding `s` (ints exact, floats cast).
Tensor scalar_tensor(const Scalar& s, DType dtype);
// Every element of dst = s cast to dst.dtype (any strides).
void fill_kernel(const Tensor& dst, const Scalar& s);
// Rounds every element of an F32 tensor (any strides) to float16 / bfloat16
// precision in place (round to nearest even): our f16/bf16 values live in f32.
void round_to_half_inplace(const Tensor& t, DType half_dtype);
// True when any element of t (a compute dtype, any strides) equals zero.
bool contains_zero(const Tensor& t);


}  // namespace tir
