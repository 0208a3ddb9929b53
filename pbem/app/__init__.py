"""Application workflows on top of the match layer: the scripted demo games
(:mod:`demo`), the status of every game (:mod:`status`) and the orders
template (:mod:`orders_template`)."""
