"""Separations between taxonomy embeddings: hyperbolic (SymTax), Euclidean and spherical.

All three are distances of the κ-stereographic model (Bachmann, Bécigneul & Ganea 2020),
which writes the Poincaré ball (κ < 0), Euclidean space (κ = 0) and the stereographic
projection of the sphere (κ > 0) with one Möbius addition::

    a ⊕_κ b = ((1 − 2κ⟨a,b⟩ − κ‖b‖²) a + (1 + κ‖a‖²) b) / (1 − 2κ⟨a,b⟩ + κ²‖a‖²‖b‖²)
    d_κ(x, y) = (2/√|κ|) · tan_κ⁻¹(√|κ| · ‖(−y) ⊕_κ x‖),   tan_κ⁻¹ = artanh (κ<0), arctan (κ>0)

With κ = −1, ⊕ is the Möbius addition of the Poincaré ball as SymTax's paper prints it
(a ⊕ b = ((1 + 2⟨a,b⟩ + ‖b‖²)a + (1 − ‖a‖²)b) / (1 + 2⟨a,b⟩ + ‖a‖²‖b‖²)) and the
separation is s(e_q, e_c) = 2·artanh(‖(−e_c) ⊕ e_q‖): the hyperbolic distance. The paper's
equation (3) and its code use 2·tan⁻¹ instead, which is the distance of the *sphere*
(κ = +1), positive curvature, not hyperbolic: it is offered as ``spherical`` for the
ablation, beside ``euclidean`` (‖e_q − e_c‖) and the default ``hyperbolic``.

:func:`to_manifold` puts the output of the projection layer h_θ on the manifold: the
exponential map at the origin for the ball (tanh(‖v‖)·v/‖v‖, kept a hair inside the
boundary so that artanh stays finite), the identity for Euclidean space and for the
stereographic sphere (every point of ℝ^d is one).
"""

from __future__ import annotations

from typing import Literal

from ..heavy import torch

Geometry = Literal["hyperbolic", "euclidean", "spherical"]
GEOMETRIES: tuple[str, ...] = ("hyperbolic", "euclidean", "spherical")
CURVATURE: dict[str, float] = {"hyperbolic": -1.0, "euclidean": 0.0, "spherical": 1.0}
BALL_EDGE = 1e-5  # points of the ball stay within norm 1 − BALL_EDGE
_EPS = 1e-15


def mobius_add(a, b, kappa: float = -1.0):
    """a ⊕_κ b over the last dimension (torch tensors; any batch shape)."""
    ab = (a * b).sum(-1, keepdim=True)
    a2 = (a * a).sum(-1, keepdim=True)
    b2 = (b * b).sum(-1, keepdim=True)
    numerator = (1 - 2 * kappa * ab - kappa * b2) * a + (1 + kappa * a2) * b
    denominator = 1 - 2 * kappa * ab + kappa * kappa * a2 * b2
    return numerator / denominator.clamp_min(_EPS)


def distance(x, y, geometry: Geometry = "hyperbolic"):
    """d(x, y) over the last dimension: shape of ``x`` without it."""
    if geometry == "euclidean":
        return (x - y).norm(dim=-1)
    kappa = _curvature(geometry)
    norm = mobius_add(-y, x, kappa).norm(dim=-1)
    if kappa < 0:
        edge = 1 - (BALL_EDGE if norm.dtype != torch.float64 else 1e-12)
        return 2 * torch.atanh(norm.clamp(max=edge))
    return 2 * torch.atan(norm)


def to_manifold(v, geometry: Geometry = "hyperbolic"):
    """Points of the manifold from vectors of ℝ^d (the output of the projection layer)."""
    if _curvature(geometry) >= 0:
        return v
    norm = v.norm(dim=-1, keepdim=True).clamp_min(_EPS)
    radius = torch.tanh(norm).clamp(max=1 - BALL_EDGE)
    return v * (radius / norm)


def _curvature(geometry: str) -> float:
    try:
        return CURVATURE[geometry]
    except KeyError:
        raise ValueError(f"geometry must be one of {', '.join(GEOMETRIES)}, not {geometry!r}") from None
