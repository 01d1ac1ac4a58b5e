"""MongoDB: the block index, the batch's generations of results, the batch lease, the embedded server."""
