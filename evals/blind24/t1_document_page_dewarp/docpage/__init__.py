"""Document-page photos: synthesis, dewarping transforms, dataset and a small layout CNN."""
