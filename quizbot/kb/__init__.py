"""Knowledge bases: their model, the built-in sources and the importers."""
