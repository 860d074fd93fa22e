-- Empties the demo app's nine resource tables between cells, so every cell
-- starts from the same (empty) database. The app creates the tables at
-- start, so they exist whenever the target is ready.
TRUNCATE TABLE patient, location, organization, practitioner, encounter,
    observation, medicationrequest, claim, explanationofbenefit;
