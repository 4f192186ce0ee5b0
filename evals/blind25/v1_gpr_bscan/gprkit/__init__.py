"""Small GPR toolkit: B-scan simulation, standard processing chain, dataset."""
