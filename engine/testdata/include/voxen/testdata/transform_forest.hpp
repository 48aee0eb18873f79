#pragma once
// Random transform forests for the tests and `voxen check`: rotations, offsets and scales
// near 1 (so that products over thousands of levels stay finite), deterministic from the
// seed (std::mt19937's sequence is specified; the distributions are drawn by hand).
#include <glm/mat4x4.hpp>

#include <cstdint>
#include <random>

#include "voxen/transform/transform_tree.hpp"

namespace voxen {

// A rotation of up to 0.3 rad about a random axis, an offset in [-1, 1]^3, a uniform scale
// in [0.9, 1.1].
glm::mat4 randomTransformLocal(std::mt19937& rng);

// Adds `roots` trees under the root of `tree`, each node with 1 to `fanout` children, to
// `depth` levels (fanout 1: chains). rootSpread > 0: each tree is moved to a random point of
// the square [-rootSpread, rootSpread]^2 at z = 0 (a scene to cull, many trees out of view).
void addRandomForest(TransformTree& tree, std::mt19937& rng, uint32_t roots, uint32_t fanout, uint32_t depth,
                     float rootSpread = 0.0f);

// A scene to draw: `chains` chains of three nodes (a base on the ground and two links 1 m
// above each other, each turned about x), the bases scattered over the square
// [-spread, spread]^2 (many of them out of a view of the centre), each node with a box of
// half-width 0.2-0.8 m and height 1 m; every `mirrorEvery`-th base is mirrored in x (0:
// none), so that the boxes' winding must flip to stay front-facing.
TransformTree chainScene(std::mt19937& rng, uint32_t chains, float spread, uint32_t mirrorEvery = 0);

}  // namespace voxen
