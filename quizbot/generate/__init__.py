"""Question generation: predicate variants, prototypes, negatives, items, subsets."""
