const utc = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The CommerceSession document of the session `s` (E3's answer and GET's), built by Postgres as
 * json: keys in the schema's order, items in the order sent. The driver parses it into plain values
 * (bigint and int as numbers, jsonb members as parsed JSON, timestamps of millisecond precision as
 * ISO instants in UTC), so no row is mapped in the Worker.
 */
export const SESSION_DOCUMENT = `json_build_object(
  'id', s.id, 'cartMode', s.cart_mode, 'channel', s.channel, 'customName', s.custom_name,
  'status', s.status, 'contacts', s.contacts, 'discounts', s.discounts, 'metadata', s.metadata,
  'guests', s.guests,
  'items', coalesce((
    select json_agg(json_build_object(
      'id', i.id, 'attributes', i.attributes, 'bookingCompId', i.booking_comp_id,
      'component', i.component, 'editable', i.editable, 'experienceId', i.experience_id,
      'itemType', i.item_type, 'lineIndex', i.line_index, 'locked', i.locked, 'name', i.name,
      'productId', i.product_id, 'qty', i.qty, 'reservationId', i.reservation_id,
      'unitPriceCents', i.unit_price_cents, 'vatPercent', i.vat_percent
    ) order by i.position)
    from commerce_session_items i where i.winery_id = s.winery_id and i.session_id = s.id
  ), '[]'::json),
  'pointOfSaleId', s.point_of_sale_id, 'roomId', s.room_id, 'tableId', s.table_id,
  'wineryId', s.winery_id, 'sourceExperienceId', s.source_experience_id,
  'sourceReservationId', s.source_reservation_id, 'version', s.version,
  'createdAt', ${utc("s.created_at")}, 'updatedAt', ${utc("s.updated_at")})`;
