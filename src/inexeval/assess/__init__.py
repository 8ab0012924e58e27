"""Campaign assessment: the judgement model, consistency rules, the store, export and the
HTTP service with its browser interface (extra ``inexeval[assess]`` for the store and service).

Only :mod:`inexeval.assess.model` is imported here; everything that needs the extra is imported
by the modules that use it, so ``import inexeval`` stays light.
"""
