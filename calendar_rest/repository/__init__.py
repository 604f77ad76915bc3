"""Write paths (TEC's ``Tribe__Events__API`` and ``Post_Repository`` writes).

Every function here runs inside the request's single transaction; none commits.
"""
