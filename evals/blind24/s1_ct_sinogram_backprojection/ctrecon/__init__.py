"""Toy parallel-beam CT: phantoms, sinograms, filtered backprojection, lesion classifier."""
