//! A small dense Cholesky solver for the (reduced) information matrices of the fit.
//!
//! The matrices are weighted graph Laplacians with one row and column removed: symmetric, positive
//! definite when the graph is connected, and diagonally dominant, which keeps Cholesky stable
//! without pivoting. n is at most a few hundred, so O(n³) is milliseconds. Matrices are row-major
//! `n × n` slices.

/// The factorisation met a pivot that is not positive: the matrix is not (numerically) positive
/// definite, e.g. a graph component joined only through weights too small to register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotPositive;

/// The lower-triangular Cholesky factor `L` of `a` (`a = L Lᵀ`), in place of `a`'s lower triangle;
/// the upper triangle is zeroed.
pub(crate) fn cholesky(a: &mut [f64], n: usize) -> Result<(), NotPositive> {
    assert_eq!(a.len(), n * n, "matrix size");
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if !(d > 0.0 && d.is_finite()) {
            return Err(NotPositive);
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
        for k in j + 1..n {
            a[j * n + k] = 0.0;
        }
    }
    Ok(())
}

/// Solves `L Lᵀ x = b` in place, given the factor from [`cholesky`].
pub(crate) fn solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * n + k] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// The inverse of `L Lᵀ` (row-major, symmetric), given the factor from [`cholesky`].
pub(crate) fn inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut inv = vec![0.0; n * n];
    let mut col = vec![0.0; n];
    for j in 0..n {
        col.iter_mut().for_each(|x| *x = 0.0);
        col[j] = 1.0;
        solve(l, n, &mut col);
        for i in 0..n {
            inv[i * n + j] = col[i];
        }
    }
    // Symmetrise the rounding so covariances read the same both ways round.
    for i in 0..n {
        for j in i + 1..n {
            let m = 0.5 * (inv[i * n + j] + inv[j * n + i]);
            inv[i * n + j] = m;
            inv[j * n + i] = m;
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
        let mut c = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn solves_and_inverts_a_known_matrix() {
        // A = [[4, 2, 0], [2, 5, 1], [0, 1, 3]], x = [1, -2, 3] → b = A x = [0, -5, 7].
        let a = vec![4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let mut l = a.clone();
        cholesky(&mut l, 3).unwrap();
        let mut b = vec![0.0, -5.0, 7.0];
        solve(&l, 3, &mut b);
        for (x, want) in b.iter().zip([1.0, -2.0, 3.0]) {
            assert!((x - want).abs() < 1e-12, "{b:?}");
        }
        let inv = inverse(&l, 3);
        let id = matmul(&a, &inv, 3);
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((id[i * 3 + j] - want).abs() < 1e-12, "{id:?}");
            }
        }
    }

    #[test]
    fn a_singular_or_broken_matrix_is_refused() {
        // A Laplacian without a row removed is singular.
        let mut a = vec![1.0, -1.0, -1.0, 1.0];
        assert_eq!(cholesky(&mut a, 2), Err(NotPositive));
        let mut a = vec![f64::NAN, 0.0, 0.0, 1.0];
        assert_eq!(cholesky(&mut a, 2), Err(NotPositive));
        let mut a = vec![-1.0];
        assert_eq!(cholesky(&mut a, 1), Err(NotPositive));
    }

    #[test]
    fn an_empty_matrix_is_fine() {
        let mut a: Vec<f64> = Vec::new();
        cholesky(&mut a, 0).unwrap();
        assert!(inverse(&a, 0).is_empty());
    }
}
