/** Small ABS correspondence files in both layouts, for the bundle format and `npm run data:postcodes`. */

export const ATTRIBUTION_2018 =
  'Source: Australian Bureau of Statistics, Postcode 2018 to Local Government Area 2018 correspondence (population weighted), © Commonwealth of Australia, CC BY 4.0';

/** As ABS publishes the 2018 file: BOM, lower-case header, PERCENTAGE column, ratios in exponent notation. */
export const SMALL_2018 = `\uFEFFpostcode,lga_code_2018,lga_name_2018,ratio,percentage
2350,10130,Armidale Regional (A),0.94659699999999999,94.6597
2350,17650,Uralla (A),5.3403000000000002E-2,5.3403
0800,71000,Darwin (C),0.95855729999999995,95.855729699999998
0800,79399,Unincorporated NT,4.1442699999999999E-2,4.1442702999999996
4055,31000,Brisbane (C),0.3,30
4055,35010,Moreton Bay (R),0.5174468,51.74468
4055,31000,Brisbane (C),0.1825532,18.25532
`;

/** The 2021+ layout: POA codes, LGA 2023 codes, quality columns and ABS's closing note. */
export const SMALL_2021 = `POA_CODE_2021,POA_NAME_2021,LGA_CODE_2023,LGA_NAME_2023,OVERALL_QUALITY_INDICATOR,RATIO_FROM_TO,INDIV_TO_REGION_QLTY_INDICATOR
POA2350,2350,10180,Armidale,Good,0.95,Good
POA2350,2350,17650,Uralla,Good,0.05,Acceptable
POA4055,4055,35011,Moreton Bay,Good,0.52,Good
POA4055,4055,31000,Brisbane,Good,0.48,Good

"© Commonwealth of Australia 2023"
`;
